// Extended API v1: the dashboard's summary. It needs sms:read; its device counts are shown only
// to a caller that also holds devices:read (null otherwise), so one permission still opens the
// route, as with every other operation, and nothing is shown that the caller may not read.
import { defineRoute } from '../../../http/route.ts';
import { presentSummary } from '../../../modules/stats/presenter.ts';
import { SummaryQuery, SummaryView } from '../../../modules/stats/schema.ts';
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
        'status now; hourly has 24 UTC hours, oldest first, counting SMS that became sent, and that became failed_send or ' +
        'failed_delivery, in each hour. Only reads.',
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
  ];
}
