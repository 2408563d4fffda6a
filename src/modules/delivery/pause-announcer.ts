// Tells the account when one of its devices is paused (device.paused) and when the pause ends
// (device.resumed). A pause starts in the circuit breaker (failed sends in a row, or every SIM
// paused: circuit-breaker.ts, sim-breaker.ts) and ends when paused_until passes or with PATCH
// settings {"paused": false}; nothing runs at the moment a pause ends by time, so a sweep finds
// both, once a second, and announces each once: devices.pause_announced_until records the pause
// whose start was announced and whose end was not yet, changed in the transaction that writes
// the events (the webhook outbox rows commit with it). Several nodes sweep the same rows: each
// takes the rows it announces with FOR UPDATE SKIP LOCKED, so no pause is announced twice.
import type { Clock } from '../../common/clock.ts';
import type { Logger } from '../../common/logger.ts';
import { PeriodicRun } from '../../common/periodic-run.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { DeliveryEvents, PausedDevice } from './domain-events.ts';
import type { Database } from '../../storage/database.ts';
import { markEndedPauses, markStartedPauses, type PauseRow } from '../devices/shared-queries.ts';

/** Pauses (and ends) announced per sweep at most; the rest wait for the next one. */
const BATCH = 100;

export class PauseAnnouncer extends PeriodicRun<number> {
  constructor(
    private readonly db: Database,
    private readonly events: DomainEvents<DeliveryEvents>,
    private readonly clock: Clock,
    logger: Logger,
    everyMs = 1_000,
  ) {
    super(() => this.announce(), {
      everyMs,
      runAtStart: true,
      failures: { logger, whileDatabaseDown: 'device pauses announced once the database is back', message: 'announcing device pauses failed' },
    });
  }

  /** Announces the pauses that started and those that ended since the last sweep; answers how many. */
  private announce(): Promise<number> {
    const now = new Date(this.clock.now());
    return this.db.transaction(async (trx) => {
      // Ends first: a device resumed and paused again between two sweeps says so in that order.
      const ended = await markEndedPauses(trx, now, BATCH);
      for (const row of ended) {
        // A deleted device's pause ends with it, said by device.deleted.
        if (row.deleted_at) continue;
        await this.events.written(trx, 'device.resumed', {
          device: deviceOf(row),
          pausedUntil: row.pause_announced_until!,
          endedBy: row.paused_until === null ? 'settings' : 'time',
        });
      }
      const started = await markStartedPauses(trx, now, BATCH);
      for (const row of started) {
        await this.events.written(trx, 'device.paused', { device: deviceOf(row), pausedUntil: row.paused_until!, reason: row.paused_reason });
      }
      return ended.length + started.length;
    });
  }
}

function deviceOf(row: PauseRow): PausedDevice {
  return { id: row.id, object_id: row.object_id, account_id: row.account_id, name: row.name, name_custom: row.name_custom };
}
