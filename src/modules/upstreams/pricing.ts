// What an SMS costs through an upstream: the price of the longest prefix of its destination the
// upstream lists, else its price per segment, times the segments the provider counted. No price
// given: it costs nothing (and the budget, if any, is never spent).
import type { PrefixPrice } from './types.ts';

export function pricePerSegment(upstream: { price_per_segment: string | number | null; prefix_prices: PrefixPrice[] }, phone: string): number {
  let best: PrefixPrice | undefined;
  for (const entry of upstream.prefix_prices) {
    if (phone.startsWith(entry.prefix) && (!best || entry.prefix.length > best.prefix.length)) best = entry;
  }
  return best ? best.price : Number(upstream.price_per_segment ?? 0);
}

/** Whether the month's spend has reached the budget: the upstream takes no more SMS this month. */
export function budgetSpent(upstream: { monthly_budget: string | number | null }, spent: number): boolean {
  return upstream.monthly_budget !== null && spent >= Number(upstream.monthly_budget);
}
