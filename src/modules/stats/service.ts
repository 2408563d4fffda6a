// The control panel's dashboard in one read: devices online and offline, SMS created since a
// time by status, SMS sent and failed per hour over the last 24 hours, and webhooks in trouble.
// Only reads, each on an index and each asked of the module whose table it reads (devices,
// messages, webhooks), so a page refreshing it costs little.
import type { Clock } from '../../common/clock.ts';
import type { Database } from '../../storage/database.ts';
import type { DevicePresence } from '../devices/presence.ts';
import { EXTENDED_STATUSES, toExtendedStatus, type ExtendedStatus, type SmsStatus } from '../messages/status.ts';
import { liveDeviceIds } from '../devices/shared-queries.ts';
import { countOutcomesPerHour, countSmsByStatus } from '../messages/stats-queries.ts';
import { failingWebhookIds } from '../webhooks/failing-webhooks.ts';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const SENT: readonly SmsStatus[] = ['sent'];
const FAILED: readonly SmsStatus[] = ['failed_send', 'failed_delivery'];

export interface Summary {
  /** Null when the caller may not read devices. */
  devices: { online: number; offline: number } | null;
  sms: { since: Date; by_status: Record<ExtendedStatus, number> };
  /** Oldest first; the last bucket is the hour under way. */
  hourly: { hour: Date; sent: number; failed: number }[];
  webhooks: { failing: number; ids: string[] };
}

export class StatsService {
  constructor(
    private readonly db: Database,
    private readonly presence: DevicePresence,
    private readonly clock: Clock,
  ) {}

  /** `since`: where the SMS counts start, by default the start of today (UTC); `devices`: whether to count devices. */
  async summary(accountId: string, options: { since?: Date; devices: boolean }): Promise<Summary> {
    const now = this.clock.now();
    const from = options.since ?? startOfUtcDay(now);
    const firstHour = Math.floor(now / HOUR_MS) - 23;
    const [deviceIds, byStatus, outcomes, failingWebhooks] = await Promise.all([
      options.devices ? liveDeviceIds(this.db, accountId) : undefined,
      countSmsByStatus(this.db, accountId, from),
      countOutcomesPerHour(this.db, accountId, new Date(firstHour * HOUR_MS), [...SENT, ...FAILED]),
      failingWebhookIds(this.db, accountId),
    ]);
    const online = deviceIds?.filter((id) => this.presence.isOnline(id, now)).length ?? 0;

    const counts = Object.fromEntries(EXTENDED_STATUSES.map((status) => [status, 0])) as Record<ExtendedStatus, number>;
    for (const [status, n] of byStatus) counts[toExtendedStatus(status)] += n;

    const hourly = Array.from({ length: 24 }, (_, i) => ({ hour: new Date((firstHour + i) * HOUR_MS), sent: 0, failed: 0 }));
    for (const { hour, status, n } of outcomes) {
      const bucket = hourly[hour - firstHour];
      if (!bucket) continue;
      if (SENT.includes(status)) bucket.sent += n;
      else bucket.failed += n;
    }

    return {
      devices: deviceIds ? { online, offline: deviceIds.length - online } : null,
      sms: { since: from, by_status: counts },
      hourly,
      webhooks: { failing: failingWebhooks.length, ids: failingWebhooks },
    };
  }
}

function startOfUtcDay(now: number): Date {
  return new Date(Math.floor(now / DAY_MS) * DAY_MS);
}
