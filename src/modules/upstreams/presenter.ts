// An upstream and the account's routes in the Extended API's shape: numbers as numbers, the
// kind's own fields flat, the secret never, and the link's state on the node that answers.
import type { Static } from '@sinclair/typebox';
import type { LinkStatus } from './links/link.ts';
import type { RouteRule, UpstreamWithUsage } from './types.ts';
import type { RoutesView, UpstreamView } from './schema.ts';

export function presentUpstream(row: UpstreamWithUsage, link: LinkStatus, month: string): Static<typeof UpstreamView> {
  const budget = row.monthly_budget === null ? null : Number(row.monthly_budget);
  const spent = Number(row.month_spent);
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    enabled: row.enabled,
    ...(row.settings as object),
    price_per_segment: row.price_per_segment === null ? null : Number(row.price_per_segment),
    prefix_prices: row.prefix_prices.map(({ prefix, price }) => ({ prefix, price: Number(price) })),
    monthly_budget: budget,
    month: { month, segments: Number(row.month_segments), spent, budget_left: budget === null ? null : Math.max(0, budget - spent) },
    link: { state: link.state, detail: link.detail, since: link.since.toISOString() },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function presentRoutes(routes: { rules: RouteRule[]; updated_at: Date } | undefined): Static<typeof RoutesView> {
  return { routes: routes?.rules ?? [], updated_at: routes?.updated_at.toISOString() ?? null };
}
