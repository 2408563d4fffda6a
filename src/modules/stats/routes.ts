// Extended API v1: the dashboard's summary. It shows SMS and devices, so it needs both
// sms:read (the route's permission) and devices:read (checked here): a viewer has both.
import { AppError } from '../../common/errors.ts';
import { defineRoute } from '../../http/route.ts';
import { presentSummary } from './presenter.ts';
import { SummaryQuery, SummaryView } from './schema.ts';
import type { StatsService } from './service.ts';

export function statsRoutes(stats: StatsService) {
  return [
    defineRoute({
      method: 'get',
      path: '/stats/summary',
      operationId: 'getStatsSummary',
      summary: 'Dashboard summary: devices online, SMS by status, sent and failed per hour, failing webhooks',
      description:
        'Needs sms:read and devices:read. SMS counts cover SMS created since `since` (default: today\'s UTC midnight), by ' +
        'status now; hourly has 24 UTC hours, oldest first, counting SMS that became sent, and that became failed_send or ' +
        'failed_delivery, in each hour. Only reads.',
      tag: 'Stats',
      permission: 'sms:read',
      query: SummaryQuery,
      responses: { 200: { description: 'the summary', schema: SummaryView } },
      async handle({ auth, query }) {
        if (!auth.permissions.has('devices:read')) {
          throw new AppError('forbidden', auth.session ? 'the user\'s role does not allow this (devices:read)' : 'the API key lacks the devices:read permission');
        }
        const summary = await stats.summary(auth.accountId, query.since ? new Date(query.since) : undefined);
        return { status: 200, body: presentSummary(summary) };
      },
    }),
  ];
}
