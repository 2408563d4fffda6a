// Coalesces the SMS that requests create at the same moment into one multi-row insert: under
// load, one round trip and one commit serve many requests. Each request still hears only after
// its row is committed (architecture decision 1: a 201 means the row is there).
import type { Database } from '../../storage/database.ts';
import { isDatabaseUnavailable, isRowLevelFailure } from '../../storage/database-errors.ts';
import { insertSms, type SmsRecord } from './repository.ts';

/** Largest batch written in one statement. */
const MAX_BATCH = 500;

interface Pending {
  sms: SmsRecord;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class SmsWriter {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(private readonly db: Database) {}

  write(sms: SmsRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ sms, resolve, reject });
      if (this.queue.length >= MAX_BATCH) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        // Everything the current turn of the event loop accepts joins this batch.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    if (this.queue.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    void this.insert(batch);
  }

  /** Inserts the batch; answers the outage that met it, if one did (undefined otherwise). */
  private async insert(batch: Pending[]): Promise<unknown> {
    try {
      await insertSms(this.db, batch.map((pending) => pending.sms), 'api');
      for (const pending of batch) pending.resolve();
      return undefined;
    } catch (error) {
      const outage = isDatabaseUnavailable(error);
      // One bad row must not fail its neighbours: the batch is written in halves until the rows
      // that fail are alone. A failure every row would meet (an outage, a statement refused
      // whole) is answered to the whole batch at once: written row by row, each would wait for
      // it again, and the last request would wait for all of them.
      if (batch.length === 1 || outage || !isRowLevelFailure(error)) {
        for (const pending of batch) pending.reject(error);
        return outage ? error : undefined;
      }
      const half = Math.ceil(batch.length / 2);
      const metOutage = await this.insert(batch.slice(0, half));
      if (metOutage === undefined) return this.insert(batch.slice(half));
      for (const pending of batch.slice(half)) pending.reject(metOutage);
      return metOutage;
    }
  }
}
