// Which rule of an account's routes carries an SMS, decided from the rules alone: pure, so that
// the router's every decision can be tested without a database or a provider.
//
// An SMS goes through the rules that apply to it (prefix, priority and category conditions hold), in order.
// A phones rule keeps it for the phones until its wait (after_seconds) ends, or at once when no
// phone of the account is online (unless skip_when_offline is false); a device group's rule
// ("group:<name>") does the same for the phones of that group only; an upstream rule hands it
// to that upstream, and moves on when the upstream cannot take it (disabled, over budget,
// refused it). An SMS no rule applies to stays with the phones, as without routes.
import type { SmsCategory } from '../../messages/category.ts';
import type { RouteRule } from '../types.ts';

export const PHONES = 'phones';
/** A target "group:uk-sims" keeps the SMS for the phones of the device group uk-sims. */
export const GROUP_PREFIX = 'group:';

/** The device group a target names; undefined for "phones" or an upstream. */
export function groupOf(target: string): string | undefined {
  return target.startsWith(GROUP_PREFIX) ? target.slice(GROUP_PREFIX.length) : undefined;
}

/** Whether a rule keeps the SMS for phones: any of the account's, or a device group's. */
export function forPhones(rule: RouteRule): boolean {
  return rule.target === PHONES || groupOf(rule.target) !== undefined;
}

/** Which of the account's phones are online: any, and the device groups with one online. */
export interface PhonesOnline {
  any: boolean;
  groups: ReadonlySet<string>;
}

export const NONE_ONLINE: PhonesOnline = { any: false, groups: new Set() };

/** Whether a phones rule has a phone online to take the SMS: any phone, or one of its group. */
export function onlineFor(rule: RouteRule, online: PhonesOnline): boolean {
  const group = groupOf(rule.target);
  return group === undefined ? online.any : online.groups.has(group);
}

export interface RoutedSms {
  phone: string;
  priority: number;
  /** What its client said it is; null: nothing (a categories condition then never holds). */
  category: SmsCategory | null;
}

export function applies(rule: RouteRule, sms: RoutedSms): boolean {
  if (rule.prefixes && rule.prefixes.length > 0 && !rule.prefixes.some((prefix) => sms.phone.startsWith(prefix))) return false;
  if (rule.min_priority !== undefined && sms.priority < rule.min_priority) return false;
  if (rule.categories && rule.categories.length > 0 && (sms.category === null || !rule.categories.includes(sms.category))) return false;
  return true;
}

/**
 * Kept for this "group" when the first rule applying to a new SMS is an upstream's: no device can
 * be in it (a device group's name is lowercase letters, digits, - and _), so no phone takes the
 * SMS before the router hands it to that upstream; a later rule for the phones lifts it.
 */
export const HELD_FOR_UPSTREAM = '~upstream';

/**
 * The device group a new SMS is kept for until the router first looks at it, from the first rule
 * applying to it: a group's rule keeps it for that group, an upstream's from every phone
 * (HELD_FOR_UPSTREAM), a phones rule or none for any phone (null). Without it a phone could take
 * the SMS in the moment before the router's first look, against the rules' order.
 */
export function groupAtCreation(rules: readonly RouteRule[], sms: RoutedSms): string | null {
  const index = nextApplicable(rules, sms, 0);
  if (index === undefined) return null;
  const target = rules[index]!.target;
  if (target === PHONES) return null;
  return groupOf(target) ?? HELD_FOR_UPSTREAM;
}

/** The index of the first rule at or after `from` that applies to the SMS; undefined when none is left. */
export function nextApplicable(rules: readonly RouteRule[], sms: RoutedSms, from: number): number | undefined {
  for (let index = Math.max(0, from); index < rules.length; index++) if (applies(rules[index]!, sms)) return index;
  return undefined;
}

export type PhonesVerdict =
  /**
   * Keep it for the phones; look again at `checkAt`, the wait's end (none: no wait). The account's
   * last phone going offline makes the router look again sooner (router.phonesLeft).
   */
  | { stay: true; checkAt: Date | null }
  /** Move on to the next rule. */
  | { stay: false; why: 'waited' | 'no_phone_online' };

/**
 * Whether a phones rule (the account's phones, or a device group's) keeps an SMS still waiting
 * for a phone (not yet acknowledged by one). `since`: when the SMS came to this rule.
 * `anyPhoneOnline`: of those the rule keeps it for (onlineFor).
 */
export function phonesVerdict(rule: RouteRule, since: Date, now: Date, anyPhoneOnline: boolean): PhonesVerdict {
  const deadline = rule.after_seconds === undefined ? undefined : since.getTime() + rule.after_seconds * 1000;
  if (deadline !== undefined && now.getTime() >= deadline) return { stay: false, why: 'waited' };
  if (rule.skip_when_offline !== false && !anyPhoneOnline) return { stay: false, why: 'no_phone_online' };
  return { stay: true, checkAt: deadline === undefined ? null : new Date(deadline) };
}
