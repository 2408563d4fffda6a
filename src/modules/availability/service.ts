// Availability: each device's changes between online and offline, kept for KEEP_DAYS, and a
// report of how long it was online over a range. Changes are recorded as presence announces them
// (the feature's listeners), so the figures are the gateway's own view of the phone: online while
// it holds its MQTT connection and shows activity within DEVICE_OFFLINE_AFTER.
import type { Clock } from '../../common/clock.ts';
import type { Logger } from '../../common/logger.ts';
import { invalidField } from '../../common/errors.ts';
import type { Metrics } from '../../common/metrics.ts';
import type { Database } from '../../storage/database.ts';
import type { DeviceService } from '../devices/service.ts';
import { changesIn, pruneBefore, recordChanges } from './repository.ts';
import { ChangeWriter } from './change-writer.ts';
import { availabilityReport, type AvailabilityReport } from './report.ts';

/** How long changes are kept: a report may start no earlier than this before now. */
export const KEEP_DAYS = 90;
/** The longest range one report covers. */
export const MAX_RANGE_DAYS = 31;
const DEFAULT_RANGE_MS = 86_400_000;
const DAY_MS = 86_400_000;
/** How long a change waits for others to share its insert (a fleet connecting at once). */
const GATHER_MS = 10;
/** Changes per insert. */
const CHANGES_PER_WRITE = 500;
export const NOT_RECORDED_METRIC = 'availability_changes_not_recorded_total';
export const NOT_RECORDED_HELP = 'changes between online and offline that could not be written (the reports show the state before them until the next change)';

export class AvailabilityService {
  private readonly changes: ChangeWriter;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly devices: Pick<DeviceService, 'get'>,
    logger: Logger,
    metrics: Pick<Metrics, 'count'>,
  ) {
    this.changes = new ChangeWriter((changes) => recordChanges(db, changes), {
      delayMs: GATHER_MS,
      maxBatch: CHANGES_PER_WRITE,
      logger,
      notRecorded: (changes) => metrics.count(NOT_RECORDED_METRIC, NOT_RECORDED_HELP, {}, changes),
    });
  }

  /**
   * Records a change announced by presence, at the time it is announced, with others announced
   * within a few milliseconds (change-writer.ts). Never throws: a change that cannot be written
   * (the database is out of reach) is logged, counted and missing from the reports, which then
   * show the state before it until the next change.
   */
  record(accountId: string, deviceId: string, online: boolean): void {
    this.changes.add({ accountId, deviceId, online, at: new Date(this.clock.now()) });
  }

  /** Writes the changes still waiting and takes no more: the database is about to close. */
  stop(): Promise<void> {
    return this.changes.close();
  }

  /**
   * The device's availability over [from, to): `to` defaults to now, `from` to a day before `to`;
   * to after from, at most MAX_RANGE_DAYS apart, from no earlier than KEEP_DAYS ago (400 otherwise);
   * 404 for a device the account does not have.
   */
  async reportOf(accountId: string, deviceId: string, asked: { from?: Date; to?: Date }): Promise<AvailabilityReport> {
    const now = this.clock.now();
    const to = asked.to ?? new Date(now);
    const from = asked.from ?? new Date(to.getTime() - DEFAULT_RANGE_MS);
    if (to.getTime() <= from.getTime()) throw invalidField('to', 'to must be after from');
    if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS) throw invalidField('to', `from and to may be at most ${MAX_RANGE_DAYS} days apart`);
    if (from.getTime() < now - KEEP_DAYS * DAY_MS) throw invalidField('from', `changes are kept for ${KEEP_DAYS} days: from may be no earlier than that before now`);
    const device = await this.devices.get(accountId, deviceId);
    const { before, changes } = await changesIn(this.db, device.id, from, to);
    return availabilityReport({ from, to }, before, changes, new Date(now));
  }

  /** Forgets the changes older than KEEP_DAYS that a later one replaced. */
  async prune(): Promise<number> {
    return pruneBefore(this.db, new Date(this.clock.now() - KEEP_DAYS * DAY_MS));
  }
}
