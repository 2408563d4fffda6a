// Records when devices were last seen, many devices per write (one transaction, one commit).
//
// Connects and disconnects come in bursts: after a gateway restart the whole fleet reconnects
// within seconds, and before it the whole fleet disconnects. One UPDATE per event, each its own
// commit waiting for a WAL flush, made the database's flush rate the limit on how fast a fleet
// comes online, and held pool connections that CONNECT authentication was queued behind. Here the
// events of a few milliseconds share one write and one commit. last_seen_at is informational
// (legacy last_online_date); a crash loses at most the last few milliseconds of it.
import { OutageNotice } from '../../storage/database-errors.ts';
import type { Database } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import { isUuid } from '../../common/object-id.ts';
import { recordLastSeen } from './repository.ts';

/** How long events wait to share a write. */
const DELAY_MS = 20;
/** Devices per write. */
const MAX_BATCH = 2000;

export class LastSeenWriter {
  /** Device id -> when it was seen; a later event replaces an earlier one still waiting. */
  private due = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private closed = false;

  private readonly outage: OutageNotice;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {
    this.outage = new OutageNotice(logger, 'last-seen times not recorded');
  }

  touch(deviceId: string, at = new Date()): void {
    if (this.closed || !isUuid(deviceId)) return;
    this.due.set(deviceId, at);
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
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.start();
    }, this.due.size >= MAX_BATCH ? 0 : DELAY_MS);
  }

  /** One write at a time, so that two batches never race for the same rows. */
  private start(): Promise<void> {
    if (!this.writing) {
      const batch = [...this.due].slice(0, MAX_BATCH);
      for (const [id] of batch) this.due.delete(id);
      this.writing = this.write(batch).finally(() => {
        this.writing = undefined;
        this.schedule();
      });
    }
    return this.writing;
  }

  private async write(batch: [string, Date][]): Promise<void> {
    if (batch.length === 0) return;
    try {
      await recordLastSeen(this.db, batch);
      this.outage.succeeded();
    } catch (error) {
      // last_seen_at is a hint (presence is in memory): a batch lost to an outage is not worth a line each.
      if (!this.outage.failed(error)) this.logger.warn({ err: error, devices: batch.length }, 'last seen not recorded');
    }
  }
}
