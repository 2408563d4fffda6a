import type { Static } from '@sinclair/typebox';
import type { DeviceReportView, SummaryView, UpstreamReportView } from './schema.ts';
import type { Summary } from './service.ts';
import type { DeviceReport, Figures, Range } from './device-report.ts';
import type { RouteReport, UpstreamReport } from './upstream-report.ts';

export function presentSummary(summary: Summary): Static<typeof SummaryView> {
  return {
    devices: summary.devices,
    sms: { since: summary.sms.since.toISOString(), by_status: summary.sms.by_status },
    hourly: summary.hourly.map((bucket) => ({ hour: bucket.hour.toISOString(), sent: bucket.sent, failed: bucket.failed })),
    webhooks: summary.webhooks,
    degraded_devices: summary.degradedDevices?.map((device) => ({ id: device.id, name: device.name, degraded_sims: device.degradedSims })) ?? null,
  };
}

type DeviceReportBody = Static<typeof DeviceReportView>;
type FiguresView = Omit<DeviceReportBody['devices'][number]['sims'][number], 'sim_slot'>;

export function presentDeviceReport(report: { range: Range; devices: DeviceReport[] }): DeviceReportBody {
  return {
    from: report.range.from.toISOString(),
    to: report.range.to.toISOString(),
    devices: report.devices.map((device) => ({
      device_id: device.deviceId,
      name: device.name,
      deleted: device.deleted,
      ...presentFigures(device),
      sims: device.sims.map((sim) => ({ sim_slot: sim.simSlot, ...presentFigures(sim) })),
    })),
  };
}

function presentFigures(figures: Figures): FiguresView {
  return {
    sent: figures.sent,
    failed_send: figures.failedSend,
    delivered: figures.delivered,
    undelivered: figures.undelivered,
    delivery_ratio: figures.deliveryRatio,
    to_sent_median_ms: figures.toSentMedianMs,
    to_sent_p95_ms: figures.toSentP95Ms,
    to_delivered_median_ms: figures.toDeliveredMedianMs,
    to_delivered_p95_ms: figures.toDeliveredP95Ms,
    canary_ended: figures.canaryEnded,
    canary_passed: figures.canaryPassed,
    canary_pass_rate: figures.canaryPassRate,
  };
}

/** The figures' columns, in the JSON's order. */
const FIGURE_COLUMNS = [
  'sent',
  'failed_send',
  'delivered',
  'undelivered',
  'delivery_ratio',
  'to_sent_median_ms',
  'to_sent_p95_ms',
  'to_delivered_median_ms',
  'to_delivered_p95_ms',
  'canary_ended',
  'canary_passed',
  'canary_pass_rate',
] as const satisfies readonly (keyof FiguresView)[];

/**
 * The report as CSV: a header row, then for each device its own row (sim_slot "all") followed by a
 * row per SIM (sim_slot the slot, "unknown" for SMS whose SIM was never known). A null figure is
 * an empty cell.
 */
export function deviceReportCsv(body: DeviceReportBody): string {
  const lines = [['device_id', 'device_name', 'deleted', 'sim_slot', ...FIGURE_COLUMNS].join(',')];
  for (const device of body.devices) {
    lines.push(csvRow([device.device_id, device.name, String(device.deleted), 'all', ...FIGURE_COLUMNS.map((column) => device[column])]));
    for (const sim of device.sims) {
      lines.push(csvRow([device.device_id, device.name, String(device.deleted), sim.sim_slot === null ? 'unknown' : String(sim.sim_slot), ...FIGURE_COLUMNS.map((column) => sim[column])]));
    }
  }
  return lines.join('\r\n') + '\r\n';
}

function csvRow(cells: (string | number | null)[]): string {
  return cells.map((cell) => csvCell(cell === null ? '' : String(cell))).join(',');
}

function csvCell(value: string): string {
  // A device name starting with = + - @ would run as a formula in a spreadsheet: a leading ' stops it.
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

type UpstreamReportBody = Static<typeof UpstreamReportView>;
type RouteFiguresView = UpstreamReportBody['phones'];

export function presentUpstreamReport(report: UpstreamReport): UpstreamReportBody {
  return {
    from: report.range.from.toISOString(),
    to: report.range.to.toISOString(),
    phones: presentRouteFigures(report.phones),
    upstreams: report.upstreams.map((upstream) => ({
      upstream_id: upstream.upstreamId,
      name: upstream.name,
      kind: upstream.kind as 'smpp' | 'twilio',
      ...presentRouteFigures(upstream),
      segments: upstream.segments,
      cost: upstream.cost,
    })),
  };
}

function presentRouteFigures(figures: RouteReport): RouteFiguresView {
  return {
    handed_over: figures.handedOver,
    sent: figures.sent,
    failed_send: figures.failedSend,
    delivered: figures.delivered,
    undelivered: figures.undelivered,
    failed_delivery: figures.failedDelivery,
    delivery_ratio: figures.deliveryRatio,
  };
}

const ROUTE_COLUMNS = ['handed_over', 'sent', 'failed_send', 'delivered', 'undelivered', 'failed_delivery', 'delivery_ratio'] as const satisfies readonly (keyof RouteFiguresView)[];

/**
 * The upstream report as CSV: a header row, the phones' row (route "phones", no upstream, segments
 * and cost empty), then a row per upstream (route "upstream"). A null figure is an empty cell.
 */
export function upstreamReportCsv(body: UpstreamReportBody): string {
  const lines = [['route', 'upstream_id', 'name', 'kind', ...ROUTE_COLUMNS, 'segments', 'cost'].join(',')];
  lines.push(csvRow(['phones', null, null, null, ...ROUTE_COLUMNS.map((column) => body.phones[column]), null, null]));
  for (const upstream of body.upstreams) {
    lines.push(csvRow(['upstream', upstream.upstream_id, upstream.name, upstream.kind, ...ROUTE_COLUMNS.map((column) => upstream[column]), upstream.segments, upstream.cost]));
  }
  return lines.join('\r\n') + '\r\n';
}
