// A device's availability report in the Extended API's shape (snake_case, ISO 8601 times).
import type { Static } from '@sinclair/typebox';
import type { AvailabilityReport } from './report.ts';
import type { AvailabilityView } from './schema.ts';

export function presentAvailability(deviceId: string, report: AvailabilityReport): Static<typeof AvailabilityView> {
  return {
    device_id: deviceId,
    from: report.from.toISOString(),
    to: report.to.toISOString(),
    online_seconds: report.onlineSeconds,
    offline_seconds: report.offlineSeconds,
    unknown_seconds: report.unknownSeconds,
    availability: report.ratio,
    changes: report.changes,
    outages: report.outages.map((outage) => ({ from: outage.from.toISOString(), to: outage.to?.toISOString() ?? null, seconds: outage.seconds })),
    outages_total: report.outagesTotal,
  };
}
