// Extended API v1: the dashboard's summary. It needs sms:read; its device counts are shown only
// to a caller that also holds devices:read (null otherwise), so one permission still opens the
// route, as with every other operation, and nothing is shown that the caller may not read.
// The device report (per device and SIM, over a range) is a report on devices: devices:read. The
// upstream report names the account's upstreams and what they cost, as GET /upstreams shows their
// month's spend: upstreams:read (a viewer holds it).
import type { Context } from 'koa';
import { defineRoute } from '../../../http/route.ts';
import { deviceReportCsv, presentDeviceReport, presentSummary, presentUpstreamReport, upstreamReportCsv } from '../../../modules/stats/presenter.ts';
import { DeviceReportQuery, DeviceReportView, SummaryQuery, SummaryView, UpstreamReportQuery, UpstreamReportView } from '../../../modules/stats/schema.ts';
import type { StatsService } from '../../../modules/stats/service.ts';

export function statsRoutes(stats: StatsService) {
  return [
    defineRoute({
      method: 'get',
      path: '/stats/summary',
      operationId: 'getStatsSummary',
      summary: 'Dashboard summary: devices online, SMS by status, sent and failed per hour, failing webhooks',
      description:
        'Needs sms:read; devices is null unless the caller also holds devices:read (a viewer holds both). SMS counts cover SMS created since `since` (default: today\'s UTC midnight), by ' +
        'status now; hourly has 24 hours, oldest first, each starting on the minute of `since` within its hour (UTC hours by default; ' +
          'from a local midnight, the hours of that zone), counting SMS that became sent, and that became failed_send or ' +
        'failed_delivery, in each hour; degraded_devices names the devices with a SIM the canary rounds found degraded ' +
        '(null without devices:read). Canary SMS (kind canary) are not counted. Only reads.',
      tag: 'Stats',
      permission: 'sms:read',
      query: SummaryQuery,
      responses: { 200: { description: 'the summary', schema: SummaryView } },
      async handle({ auth, query }) {
        const summary = await stats.summary(auth.accountId, {
          ...(query.since ? { since: new Date(query.since) } : {}),
          devices: auth.permissions.has('devices:read'),
        });
        return { status: 200, body: presentSummary(summary) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/stats/devices',
      operationId: 'getDeviceStats',
      summary: 'Per device and SIM over a range: SMS sent, failed, delivered, timings, canary pass rate (JSON or CSV)',
      description:
        'Counts the SMS created in [from, to) (default: the last 7 days; at most 366 days) that were handed to a phone and ' +
        'ended, by the device that had them and the SIM it sent from (the one asked for when the phone did not say). sent: ' +
        'the phone sent it (sent, delivered, undelivered, failed_delivery); failed_send; delivered; undelivered; ' +
        'delivery_ratio = delivered / (delivered + undelivered). Timings run from the hand-out to the phone (the last one, ' +
        'for a send retried) to the sent report and to the delivery report: median and 95th percentile in ms. Canary SMS ' +
        'are counted only in the canary figures: the probes the device sent whose result came in the range (canary_ended, ' +
        'canary_passed, canary_pass_rate). Each device has its own figures over all its SIMs and a row per SIM. ' +
        'CSV with format=csv (or an Accept header preferring text/csv): a header row, a row per device (sim_slot "all") ' +
        'then per SIM, null figures empty, sent as an attachment.',
      tag: 'Stats',
      permission: 'devices:read',
      query: DeviceReportQuery,
      responses: {
        200: { description: 'the report (text/csv with format=csv)', schema: DeviceReportView },
      },
      errors: ['validation_failed'],
      async handle({ auth, query, ctx }) {
        const report = presentDeviceReport(await stats.deviceReport(auth.accountId, rangeOf(query)));
        return reportAnswer(ctx, query.format, report, `device-stats-${report.from.slice(0, 10)}-${report.to.slice(0, 10)}.csv`, deviceReportCsv);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/stats/upstreams',
      operationId: 'getUpstreamStats',
      summary: 'Per upstream over a range, beside the phones: SMS handed over, sent, delivered, failed, segments and cost (JSON or CSV)',
      description:
        'Counts the SMS created in [from, to) (default: the last 7 days; at most 366 days) by the route that carried them. ' +
        'Per upstream of the account: handed_over (SMS handed to it, accepted, refused or never answered), sent (it accepted ' +
        'them), failed_send (refused, or no answer: upstream_outcome_unknown), delivered, undelivered and failed_delivery (their ' +
        'status now, as its receipts said), delivery_ratio = delivered / (delivered + undelivered + failed_delivery), segments ' +
        'and cost: the sum of what each SMS was charged when the upstream took it, at the price per segment or prefix of that ' +
        'moment (a later change of price leaves it as it was). An SMS refused by one upstream and taken by the next counts in ' +
        'both, as refused and as sent. phones: the same figures for the SMS a phone took and that ended, as the device report ' +
        'counts them (no segments or cost). Canary SMS are not counted. CSV with format=csv (or an Accept header preferring ' +
        'text/csv): a header row, the phones\' row, then a row per upstream, sent as an attachment.',
      tag: 'Stats',
      permission: 'upstreams:read',
      query: UpstreamReportQuery,
      responses: {
        200: { description: 'the report (text/csv with format=csv)', schema: UpstreamReportView },
      },
      errors: ['validation_failed'],
      async handle({ auth, query, ctx }) {
        const report = presentUpstreamReport(await stats.upstreamReport(auth.accountId, rangeOf(query)));
        return reportAnswer(ctx, query.format, report, `upstream-stats-${report.from.slice(0, 10)}-${report.to.slice(0, 10)}.csv`, upstreamReportCsv);
      },
    }),
  ];
}

/** A report's range as asked; what is not given the service defaults. */
function rangeOf(query: { from?: string; to?: string }): { from?: Date; to?: Date } {
  return { ...(query.from ? { from: new Date(query.from) } : {}), ...(query.to ? { to: new Date(query.to) } : {}) };
}

/**
 * A report as JSON, or as a CSV attachment with format=csv (or an Accept header preferring
 * text/csv, for a spreadsheet's web import that cannot add a query parameter).
 */
function reportAnswer<R>(ctx: Context, format: 'json' | 'csv' | undefined, report: R, filename: string, toCsv: (report: R) => string) {
  const csv = format ? format === 'csv' : ctx.accepts('application/json', 'text/csv') === 'text/csv';
  if (!csv) return { status: 200, body: report };
  return {
    status: 200,
    headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${filename}"`, 'Cache-Control': 'no-store' },
    body: toCsv(report),
  };
}
