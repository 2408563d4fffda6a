// Writes that many events ask for at once, coalesced: events of the same key within a few
// milliseconds become one row of one statement, and one commit serves them all. For facts that
// may trail the change behind them by those milliseconds and whose latest value is all that
// counts (when a device was last seen, the latest SMS of a conversation).
//
// Why: one statement per event, each its own commit waiting for a WAL flush, makes the database's
// flush rate the limit under a burst, and events on one row (a fleet reconnecting, a burst of SMS
// to one number) queue behind each other's row lock. Batches are written one at a time, so two
// never race for the same rows.
import { OutageNotice } from './database-errors.ts';
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
  /** What the outage line says is lost meanwhile ("last-seen times not recorded"). */
  whileDatabaseDown: string;
  /** The warning for a write that failed otherwise. */
  failed: string;
}

export class CoalescingWriter<V> {
  private due = new Map<string, V>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private closed = false;
  private readonly outage: OutageNotice;

  constructor(private readonly options: CoalescingOptions<V>) {
    this.outage = new OutageNotice(options.logger, options.whileDatabaseDown);
  }

  add(key: string, value: V): void {
    if (this.closed) return;
    const waiting = this.due.get(key);
    this.due.set(key, waiting === undefined ? value : this.options.merge(waiting, value));
    this.schedule();
  }

  /** Writes what is waiting and takes no more: the database is about to close. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  /** Writes everything waiting, and whatever arrives meanwhile. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing || this.due.size > 0) await this.start();
  }

  private schedule(): void {
    if (this.timer || this.writing || this.due.size === 0) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.start();
      },
      this.due.size >= this.options.maxBatch ? 0 : this.options.delayMs,
    );
  }

  private start(): Promise<void> {
    if (!this.writing) {
      const batch = [...this.due].slice(0, this.options.maxBatch);
      for (const [key] of batch) this.due.delete(key);
      this.writing = this.write(batch.map(([, value]) => value)).finally(() => {
        this.writing = undefined;
        this.schedule();
      });
    }
    return this.writing;
  }

  private async write(batch: V[]): Promise<void> {
    if (batch.length === 0) return;
    try {
      await this.options.write(batch);
      this.outage.succeeded();
    } catch (error) {
      // What these write trails a committed change and is written again by the next event of its
      // key: a batch lost to an outage is not worth a line each.
      if (!this.outage.failed(error)) this.options.logger.warn({ err: error, rows: batch.length }, this.options.failed);
    }
  }
}
