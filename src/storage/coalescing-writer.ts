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
// meanwhile, and is written once the database answers (after a pause growing to 5 s through an
// outage; at once after one lost race, with a growing pause after several in a row). A write one
// row breaks (a constraint, a value) is written in halves until the rows that fail are alone
// (write-in-halves.ts), so one bad row (an SMS of an account deleted a moment before its write)
// takes no other account's rows with it. Only rows that fail for good are dropped, with one
// warning a batch; a statement the database refuses whole is not split (every half would fail
// the same way).
import { performance } from 'node:perf_hooks';
import { OutageNotice } from '../common/outage-notice.ts';
import { Backoff, isLostLockRace } from './database-errors.ts';
import { writeInHalves } from './write-in-halves.ts';
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
  /** The warning for rows dropped because they fail for good. */
  failed: string;
  /** The first pause before writing again through an outage (doubling up to 5 s); 250 ms unless set. */
  outageRetryMs?: number;
}

/**
 * How a write ended: written (rows that fail for good dropped, if any), or waiting again because
 * the database is unreachable (outage) or rolled the write back in a lost race for locks (raced).
 */
type Written = 'written' | 'outage' | 'raced';

/** Lost races in a row after which a warning says so (and each retry waits longer). */
const RACES_WARNED = 3;
/** Lost races flush() retries at once before it leaves the rows to the timer. */
const RACES_FLUSHED = 3;

export class CoalescingWriter<V> {
  private due = new Map<string, V>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<Written> | undefined;
  /** While set, no timer starts a write before this time (performance.now()). */
  private pausedUntil = 0;
  /** Lost races since the last write that went in. */
  private races = 0;
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
      this.options.logger.warn({ rows: this.due.size }, `${this.options.failed}: the database closed before they could be written`);
      this.due.clear();
    }
  }

  /**
   * Writes everything waiting, and whatever arrives meanwhile, until the database is unreachable
   * or keeps rolling the write back: what waits then is left to the timer.
   */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    let races = 0;
    while (this.writing || this.due.size > 0) {
      const written = await this.start();
      if (written === 'outage' || (written === 'raced' && ++races >= RACES_FLUSHED)) break;
    }
    this.schedule();
  }

  /** Keeps `value` as the key's waiting value, merged with one already waiting (which came later). */
  private keep(key: string, value: V, later = false): void {
    const waiting = this.due.get(key);
    if (waiting === undefined) this.due.set(key, value);
    else this.due.set(key, later ? this.options.merge(value, waiting) : this.options.merge(waiting, value));
  }

  /** The rows of a write rolled back whole wait again, each under what arrived for its key meanwhile. */
  private requeue(rows: [string, V][]): void {
    for (const [key, value] of rows) this.keep(key, value, true);
  }

  private schedule(): void {
    if (this.closed || this.timer || this.writing || this.due.size === 0) return;
    const wait = Math.max(this.pausedUntil - performance.now(), this.due.size >= this.options.maxBatch ? 0 : this.options.delayMs);
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
    let dropped = 0;
    let failure: unknown;
    const drop = (rows: number, error: unknown) => {
      dropped += rows;
      failure ??= error;
    };
    const stopped = await writeInHalves(batch, (rows) => this.options.write(rows.map(([, value]) => value)), (_row, error) => drop(1, error));
    let written: Written = 'written';
    if (!stopped) {
      this.outage.succeeded();
      this.backoff.reset();
      this.races = 0;
      this.pausedUntil = 0;
    } else if (this.outage.failed(stopped.error)) {
      this.requeue(stopped.rows);
      this.pausedUntil = performance.now() + this.backoff.delay();
      written = 'outage';
    } else if (isLostLockRace(stopped.error)) {
      this.requeue(stopped.rows);
      // Once is chance, and written again at once; again and again, the writes wait longer each time.
      if (++this.races > 1) this.pausedUntil = performance.now() + this.backoff.delay();
      if (this.races === RACES_WARNED) {
        this.options.logger.warn({ err: stopped.error, rows: stopped.rows.length, races: this.races }, `${this.options.failed}: rolled back in lost lock races in a row; writing again after a pause`);
      }
      written = 'raced';
    } else {
      // Refused whole: every half would be refused the same way.
      drop(stopped.rows.length, stopped.error);
    }
    if (dropped > 0) this.options.logger.warn({ err: failure, rows: dropped }, this.options.failed);
    return written;
  }
}
