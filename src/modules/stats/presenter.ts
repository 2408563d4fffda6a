import type { Static } from '@sinclair/typebox';
import type { SummaryView } from './schema.ts';
import type { Summary } from './service.ts';

export function presentSummary(summary: Summary): Static<typeof SummaryView> {
  return {
    devices: summary.devices,
    sms: { since: summary.sms.since.toISOString(), by_status: summary.sms.by_status },
    hourly: summary.hourly.map((bucket) => ({ hour: bucket.hour.toISOString(), sent: bucket.sent, failed: bucket.failed })),
    webhooks: summary.webhooks,
  };
}
