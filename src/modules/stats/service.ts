// The control panel's dashboard in one read: devices online and offline, SMS created since a
// time by status, SMS sent and failed per hour over the last 24 hours, and webhooks in trouble.
// Only reads, each on an index and each asked of the module whose table it reads (devices,
// messages, webhooks), so a page refreshing it costs little.
import type { Clock } from '../../common/clock.ts';
import type { Database } from '../../storage/database.ts';
import type { DevicePresence } from '../devices/presence.ts';
import { EXTENDED_STATUSES, toExtendedStatus, type ExtendedStatus, type SmsStatus } from '../messages/status.ts';
import { liveDeviceIds } from '../devices/shared-queries.ts';
import { countHandledSmsPerSim, countOutcomesPerHour, countSmsByStatus } from '../messages/stats-queries.ts';
import { failingWebhookIds } from '../webhooks/failing-webhooks.ts';
import { invalidField } from '../../common/errors.ts';
import { buildDeviceReport, type DeviceReport, type Range } from './device-report.ts';
import { countCanariesPerSender, degradedDevices, devicesToReport } from './fleet-queries.ts';
import { buildUpstreamReport, type UpstreamReport } from './upstream-report.ts';
import { countSmsOfPhones, countSmsPerUpstream, sumCostPerUpstream, upstreamsToReport } from './upstream-queries.ts';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
/** The device report's range when none is asked for: the last 7 days. */
const DEFAULT_REPORT_DAYS = 7;
/** A longer range would read a year and more of SMS in one request. */
const MAX_REPORT_DAYS = 366;
const SENT: readonly SmsStatus[] = ['sent'];
const FAILED: readonly SmsStatus[] = ['failed_send', 'failed_delivery'];

export interface Summary {
  /** Null when the caller may not read devices. */
  devices: { online: number; offline: number } | null;
  sms: { since: Date; by_status: Record<ExtendedStatus, number> };
  /** Oldest first; the last bucket is the hour under way. */
  hourly: { hour: Date; sent: number; failed: number }[];
  webhooks: { failing: number; ids: string[] };
  /** The live devices with a degraded SIM; null when the caller may not read devices. */
  degradedDevices: { id: string; name: string; degradedSims: number }[] | null;
}

export class StatsService {
  constructor(
    private readonly db: Database,
    private readonly presence: DevicePresence,
    private readonly clock: Clock,
  ) {}

  /**
   * `since`: where the SMS counts start, by default the start of today (UTC), and where within an
   * hour the hourly buckets start; `devices`: whether to count devices.
   */
  async summary(accountId: string, options: { since?: Date; devices: boolean }): Promise<Summary> {
    const now = this.clock.now();
    const from = options.since ?? startOfUtcDay(now);
    // The hours start where `since` does within its hour: from a person's own midnight, hours of
    // their zone, even one half an hour off UTC.
    const hourStartsAt = ((from.getTime() % HOUR_MS) + HOUR_MS) % HOUR_MS;
    const firstHour = Math.floor((now - hourStartsAt) / HOUR_MS) - 23;
    const [deviceIds, degraded, byStatus, outcomes, failingWebhooks] = await Promise.all([
      options.devices ? liveDeviceIds(this.db, accountId) : undefined,
      options.devices ? degradedDevices(this.db, accountId) : undefined,
      countSmsByStatus(this.db, accountId, from),
      countOutcomesPerHour(this.db, accountId, new Date(firstHour * HOUR_MS + hourStartsAt), [...SENT, ...FAILED], hourStartsAt),
      failingWebhookIds(this.db, accountId),
    ]);
    const online = deviceIds?.filter((id) => this.presence.isOnline(id, now)).length ?? 0;

    const counts = Object.fromEntries(EXTENDED_STATUSES.map((status) => [status, 0])) as Record<ExtendedStatus, number>;
    for (const [status, n] of byStatus) counts[toExtendedStatus(status)] += n;

    const hourly = Array.from({ length: 24 }, (_, i) => ({ hour: new Date((firstHour + i) * HOUR_MS + hourStartsAt), sent: 0, failed: 0 }));
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
      degradedDevices: degraded ? degraded.map(({ id, name, degradedSims }) => ({ id, name, degradedSims })) : null,
    };
  }

  /**
   * Per device and SIM over [from, to): the SMS handed to it that ended, their timings, and its
   * canaries. `to` defaults to now, `from` to 7 days before `to`; to must be after from, and the
   * range at most 366 days (400 otherwise).
   */
  async deviceReport(accountId: string, asked: { from?: Date; to?: Date }): Promise<{ range: Range; devices: DeviceReport[] }> {
    const range = reportRange(asked, this.clock.now());
    const [sms, canaries] = await Promise.all([
      countHandledSmsPerSim(this.db, accountId, range.from, range.to),
      countCanariesPerSender(this.db, accountId, range.from, range.to),
    ]);
    // Deleted devices are listed only when they have figures in the range.
    const withFigures = [...new Set([...sms, ...canaries].map((row) => row.deviceId))];
    const devices = await devicesToReport(this.db, accountId, withFigures);
    return { range, devices: buildDeviceReport(devices, sms, canaries) };
  }

  /**
   * Per upstream over [from, to), and for the phones as a whole: the SMS created in the range that
   * were handed over, what became of them, and (upstreams) their segments and cost as charged when
   * each was handed over. The range as for the device report.
   */
  async upstreamReport(accountId: string, asked: { from?: Date; to?: Date }): Promise<UpstreamReport> {
    const range = reportRange(asked, this.clock.now());
    const [upstreams, figures, costs, phones] = await Promise.all([
      upstreamsToReport(this.db, accountId),
      countSmsPerUpstream(this.db, accountId, range.from, range.to),
      sumCostPerUpstream(this.db, accountId, range.from, range.to),
      countSmsOfPhones(this.db, accountId, range.from, range.to),
    ]);
    return buildUpstreamReport(range, upstreams, figures, costs, phones);
  }
}

function reportRange(asked: { from?: Date; to?: Date }, now: number): Range {
  const to = asked.to ?? new Date(now);
  const from = asked.from ?? new Date(to.getTime() - DEFAULT_REPORT_DAYS * DAY_MS);
  if (to.getTime() <= from.getTime()) throw invalidField('to', 'to must be after from');
  if (to.getTime() - from.getTime() > MAX_REPORT_DAYS * DAY_MS) throw invalidField('to', `from and to may be at most ${MAX_REPORT_DAYS} days apart`);
  return { from, to };
}

function startOfUtcDay(now: number): Date {
  return new Date(Math.floor(now / DAY_MS) * DAY_MS);
}
