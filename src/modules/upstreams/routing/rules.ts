// Which rule of an account's routes carries an SMS, decided from the rules alone: pure, so that
// the router's every decision can be tested without a database or a provider.
//
// An SMS goes through the rules that apply to it (prefix, priority and category conditions hold), in order.
// A phones rule keeps it for the phones until its wait (after_seconds) ends, or at once when no
// phone of the account is online (unless skip_when_offline is false); an upstream rule hands it
// to that upstream, and moves on when the upstream cannot take it (disabled, over budget,
// refused it). An SMS no rule applies to stays with the phones, as without routes.
import type { SmsCategory } from '../../messages/category.ts';
import type { RouteRule } from '../types.ts';

export const PHONES = 'phones';

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
 * Whether a phones rule keeps an SMS still waiting for a phone (not yet acknowledged by one).
 * `since`: when the SMS came to this rule.
 */
export function phonesVerdict(rule: RouteRule, since: Date, now: Date, anyPhoneOnline: boolean): PhonesVerdict {
  const deadline = rule.after_seconds === undefined ? undefined : since.getTime() + rule.after_seconds * 1000;
  if (deadline !== undefined && now.getTime() >= deadline) return { stay: false, why: 'waited' };
  if (rule.skip_when_offline !== false && !anyPhoneOnline) return { stay: false, why: 'no_phone_online' };
  return { stay: true, checkAt: deadline === undefined ? null : new Date(deadline) };
}
