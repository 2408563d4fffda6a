// Writes that many events ask for at once, coalesced: events of the same key within a few
// milliseconds become one row of one statement, and one commit serves them all. For facts that
// may trail the change behind them by those milliseconds and whose latest value is all that
// counts (when a device was last seen, the latest SMS of a conversation).
//
// Why: one statement per event, each its own commit waiting for a WAL flush, makes the database's
// flush rate the limit under a burst, and events on one row (a fleet reconnecting, a burst of SMS
// to one number) queue behind each other's row lock. Batches are written one at a time, so two
// never race for the same rows.
//
// Nothing is dropped for a failure that passes: a batch that met a database outage, or lost a
// race for locks (rolled back whole), waits again, merged with whatever arrived for its keys
// meanwhile, and is written once the database answers (retried with a growing pause through an
// outage, at once after a lost race). A write that fails for good (a constraint, a bug) is split
// in halves until the rows that fail are alone, so that one bad row (an SMS of an account deleted
// a moment before its write) takes no other account's rows with it; only those rows are logged
// and dropped: they would fail the same way however often they ran.
import { Backoff, isLostLockRace, OutageNotice } from './database-errors.ts';
import type { Logger } from '../common/logger.ts';

export interface CoalescingOptions<V> {
  /** How long an event waits for others to share its write. */
  delayMs: number;
  /** Rows per write; more waiting start the next write at once. */
  maxBatch: number;
  /** The value a key keeps when a later event of the same key arrives before its write. */
  merge(waiting: V, arriving: V): V;
  /** One write of many rows. */
  write(batch: V[]): Promise<void>;
  logger: Logger;
  /** What the outage line says waits meanwhile ("last-seen times held"). */
  whileDatabaseDown: string;
  /** The warning for a write that failed for good. */
  failed: string;
  /** The first pause before writing again through an outage (doubling up to 5 s); 250 ms unless set. */
  outageRetryMs?: number;
}

/** How a write ended: written, waiting again (the failure passes), or with rows dropped (they fail for good). */
type Written = 'written' | 'waiting' | 'dropped';

export class CoalescingWriter<V> {
  private due = new Map<string, V>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<Written> | undefined;
  /** Set through an outage: no write starts before this time (Date.now()). */
  private pausedUntil = 0;
  private closed = false;
  private readonly outage: OutageNotice;
  private readonly backoff: Backoff;

  constructor(private readonly options: CoalescingOptions<V>) {
    this.outage = new OutageNotice(options.logger, options.whileDatabaseDown);
    this.backoff = new Backoff(options.outageRetryMs ?? 250);
  }

  add(key: string, value: V): void {
    if (this.closed) return;
    this.keep(key, value);
    this.schedule();
  }

  /** Writes what is waiting, then takes no more: the database is about to close. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.due.size > 0) {
      // The database is closing while unreachable: nothing can write these any more.
      this.options.logger.warn({ rows: this.due.size }, `${this.options.failed}: the database closed while unreachable`);
      this.due.clear();
    }
  }

  /**
   * Writes everything waiting, and whatever arrives meanwhile, until a write has to wait for the
   * database: that write, and what arrives after it, is left to the retry.
   */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pausedUntil = 0;
    while (this.writing || this.due.size > 0) {
      if ((await this.start()) === 'waiting') break;
    }
    this.schedule();
  }

  /** Keeps `value` as the key's waiting value, merged with one already waiting (which came later). */
  private keep(key: string, value: V, later = false): void {
    const waiting = this.due.get(key);
    if (waiting === undefined) this.due.set(key, value);
    else this.due.set(key, later ? this.options.merge(value, waiting) : this.options.merge(waiting, value));
  }

  private schedule(): void {
    if (this.closed || this.timer || this.writing || this.due.size === 0) return;
    const wait = Math.max(this.pausedUntil - Date.now(), this.due.size >= this.options.maxBatch ? 0 : this.options.delayMs);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.start();
    }, wait);
  }

  private start(): Promise<Written> {
    if (!this.writing) {
      const batch = [...this.due].slice(0, this.options.maxBatch);
      for (const [key] of batch) this.due.delete(key);
      this.writing = this.write(batch).finally(() => {
        this.writing = undefined;
        this.schedule();
      });
    }
    return this.writing;
  }

  private async write(batch: [string, V][]): Promise<Written> {
    if (batch.length === 0) return 'written';
    try {
      await this.options.write(batch.map(([, value]) => value));
      this.outage.succeeded();
      this.backoff.reset();
      return 'written';
    } catch (error) {
      const outage = this.outage.failed(error);
      if (outage || isLostLockRace(error)) {
        // Rolled back whole: the rows wait again, each under what arrived for its key meanwhile.
        for (const [key, value] of batch) this.keep(key, value, true);
        if (outage) this.pausedUntil = Date.now() + this.backoff.delay();
        return 'waiting';
      }
      if (batch.length === 1) {
        this.options.logger.warn({ err: error, rows: 1 }, this.options.failed);
        return 'dropped';
      }
      // Written half by half, the rows that are fine are written and the bad ones found.
      const half = Math.ceil(batch.length / 2);
      const first = await this.write(batch.slice(0, half));
      const second = await this.write(batch.slice(half));
      return first === 'waiting' || second === 'waiting' ? 'waiting' : 'dropped';
    }
  }
}
