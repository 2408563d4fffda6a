// The upstream report: per upstream, the SMS handed to it over a range, what became of them and
// what they cost, beside the same figures for the account's phones. Built from four reads made at
// once (upstream-queries.ts); this file only puts them together.
import type { Range } from './device-report.ts';
import type { NamedUpstream, RouteFigures, UpstreamCost, UpstreamFigures } from './upstream-queries.ts';

export interface RouteReport extends RouteFigures {
  /** delivered / (delivered + undelivered + failed_delivery); null when none of them. */
  deliveryRatio: number | null;
}

export interface UpstreamReportRow extends RouteReport {
  upstreamId: string;
  name: string;
  kind: string;
  segments: number;
  cost: number;
}

export interface UpstreamReport {
  range: Range;
  phones: RouteReport;
  upstreams: UpstreamReportRow[];
}

export function buildUpstreamReport(range: Range, upstreams: NamedUpstream[], figures: UpstreamFigures[], costs: UpstreamCost[], phones: RouteFigures): UpstreamReport {
  const figuresOf = new Map(figures.map((row) => [row.upstreamId, row]));
  const costOf = new Map(costs.map((row) => [row.upstreamId, row]));
  return {
    range,
    phones: withRatio(phones),
    // An upstream deleted since is not listed: its submissions and costs went with it.
    upstreams: upstreams.map((upstream) => ({
      upstreamId: upstream.id,
      name: upstream.name,
      kind: upstream.kind,
      ...withRatio(figuresOf.get(upstream.id) ?? noFigures()),
      segments: costOf.get(upstream.id)?.segments ?? 0,
      cost: Math.round((costOf.get(upstream.id)?.cost ?? 0) * 1e6) / 1e6,
    })),
  };
}

function withRatio(figures: RouteFigures): RouteReport {
  const { handedOver, sent, failedSend, delivered, undelivered, failedDelivery } = figures;
  const ended = delivered + undelivered + failedDelivery;
  return { handedOver, sent, failedSend, delivered, undelivered, failedDelivery, deliveryRatio: ended === 0 ? null : Math.round((delivered / ended) * 10_000) / 10_000 };
}

function noFigures(): RouteFigures {
  return { handedOver: 0, sent: 0, failedSend: 0, delivered: 0, undelivered: 0, failedDelivery: 0 };
}
