// Changes between online and offline are written many to a statement.
//
// Why: a fleet connecting at once (a gateway restart: the whole fleet within seconds) announces a
// change per phone, and disconnecting before it another; one insert each was a statement and a
// commit per phone. Here the changes announced within a few milliseconds (at most maxBatch) go in
// one insert, in the order they were announced: each device's changes are compared to each other
// in the statement, and one write at a time, so that a write compares a device's first change in
// it to the rows the writes before it left.
//
// A change is informational (the availability report): one that cannot be written is missing from
// the reports, which show the state before it until the next change, as when each was written
// alone. A change that breaks the insert alone (its device deleted with its account a moment
// before, which leaves nowhere to keep it) is written apart from the others (write-in-halves.ts)
// and only it is lost; a write the database fails whole loses its changes, counted, and logged once
// per write (through an outage, once for the outage).
import type { Logger } from '../../common/logger.ts';
import { OutageNotice } from '../../common/outage-notice.ts';
import { isPostgresError } from '../../storage/database.ts';
import { writeInHalves } from '../../storage/write-in-halves.ts';
import type { AnnouncedChange } from './repository.ts';

const FOREIGN_KEY_VIOLATION = '23503';

export interface ChangeWriterOptions {
  /** How long a change waits for others to share its write. */
  delayMs: number;
  /** Changes per write; more waiting start the next write at once. */
  maxBatch: number;
  logger: Logger;
  /** Counts the changes that could not be written. */
  notRecorded(changes: number): void;
}

export class ChangeWriter {
  private waiting: AnnouncedChange[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private closed = false;
  private readonly outage: OutageNotice;

  constructor(
    /** One insert of many changes, in the order given. */
    private readonly write: (changes: AnnouncedChange[]) => Promise<unknown>,
    private readonly options: ChangeWriterOptions,
  ) {
    this.outage = new OutageNotice(options.logger, 'availability changes not recorded');
  }

  add(change: AnnouncedChange): void {
    if (this.closed) {
      this.lost([change], new Error('the database is closing'));
      return;
    }
    this.waiting.push(change);
    this.schedule();
  }

  /** Writes everything waiting, and whatever arrives meanwhile; then takes no more: the database is about to close. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing || this.waiting.length > 0) await (this.writing ?? this.start());
    this.closed = true;
  }

  private schedule(): void {
    if (this.closed || this.timer || this.writing || this.waiting.length === 0) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.start();
      },
      this.waiting.length >= this.options.maxBatch ? 0 : this.options.delayMs,
    );
  }

  private start(): Promise<void> {
    if (!this.writing) {
      const batch = this.waiting.splice(0, this.options.maxBatch);
      this.writing = this.writeBatch(batch).finally(() => {
        this.writing = undefined;
        this.schedule();
      });
    }
    return this.writing;
  }

  private async writeBatch(batch: AnnouncedChange[]): Promise<void> {
    const startedAt = Date.now();
    const failedAlone: AnnouncedChange[] = [];
    let failure: unknown;
    const stopped = await writeInHalves(
      batch,
      async (changes) => void (await this.write(changes)),
      (change, error) => {
        // A device deleted with its account a moment ago has nowhere to keep its changes.
        if (isPostgresError(error, FOREIGN_KEY_VIOLATION)) return;
        failedAlone.push(change);
        failure ??= error;
      },
    );
    if (failedAlone.length > 0) this.lost(failedAlone, failure);
    if (!stopped) return this.outage.succeeded(startedAt);
    // Through an outage one line says so, not one per write.
    if (this.outage.failed(stopped.error)) this.options.notRecorded(stopped.rows.length);
    else this.lost(stopped.rows, stopped.error);
  }

  private lost(changes: AnnouncedChange[], error: unknown): void {
    this.options.notRecorded(changes.length);
    this.options.logger.warn({ err: error, changes: changes.length }, 'availability changes not recorded');
  }
}
