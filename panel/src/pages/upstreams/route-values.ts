// A route rule as the editor holds it (text as typed) and as PUT /routes takes it. Phones-only
// settings (after_seconds, skip_when_offline) are sent with a phones rule only; the default
// (skip when no phone is online) is left unsaid, so what is read back is what was meant. What a
// rule holds that the editor does not show (a setting newer than the panel) is saved back as it
// came, never dropped by a save that did not touch it.
import type { AsTyped, RouteRule } from './types.ts';

export const PHONES = 'phones';

export type Category = NonNullable<RouteRule['categories']>[number];
/** The categories a client may send an SMS with (POST /sms category), in the API's order. */
export const CATEGORIES = ['otp', 'transactional', 'marketing'] as const satisfies readonly Category[];
// A category the API adds and this list lacks is a type error here, not a rule the editor cannot show.
const everyCategory: Exclude<Category, (typeof CATEGORIES)[number]> extends never ? true : never = true;
void everyCategory;

export interface RuleValues {
  /** Tells the rows apart while they move (a rule has no id of its own). */
  key: number;
  target: string;
  /** "+44, +33": as typed. */
  prefixes: string;
  min_priority: string;
  /** None ticked: any SMS. */
  categories: Category[];
  after_seconds: string;
  skip_when_offline: boolean;
  /** The rule's other settings, as read. */
  kept: Partial<RouteRule>;
}

let nextKey = 0;

export function newRule(target = PHONES): RuleValues {
  return { key: nextKey++, target, prefixes: '', min_priority: '', categories: [], after_seconds: '', skip_when_offline: true, kept: {} };
}

export function ruleValues(rule: RouteRule): RuleValues {
  const { target, prefixes, min_priority, categories, after_seconds, skip_when_offline, ...kept } = rule;
  return {
    ...newRule(target),
    prefixes: (prefixes ?? []).join(', '),
    min_priority: min_priority === undefined ? '' : String(min_priority),
    categories: categories ?? [],
    after_seconds: after_seconds === undefined ? '' : String(after_seconds),
    skip_when_offline: skip_when_offline ?? true,
    kept,
  };
}

export function ruleBody(values: RuleValues): AsTyped<RouteRule> {
  const prefixes = values.prefixes.split(/[\s,;]+/).filter(Boolean);
  const phones = values.target === PHONES;
  return {
    ...values.kept,
    target: values.target,
    ...(prefixes.length > 0 ? { prefixes } : {}),
    ...(values.min_priority.trim() !== '' ? { min_priority: numberOrText(values.min_priority) } : {}),
    ...(values.categories.length > 0 ? { categories: values.categories } : {}),
    ...(phones && values.after_seconds.trim() !== '' ? { after_seconds: numberOrText(values.after_seconds) } : {}),
    ...(phones && !values.skip_when_offline ? { skip_when_offline: false } : {}),
  };
}

/** Moves the rule at `from` by `by` places (-1: up); the list as it was when that is past an end. */
export function moved<Item>(items: Item[], from: number, by: number): Item[] {
  const to = from + by;
  if (to < 0 || to >= items.length) return items;
  const next = [...items];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}

function numberOrText(value: string): number | string {
  const trimmed = value.trim();
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : value;
}
