// Coalesces the SMS that requests create at the same moment into one multi-row insert: under
// load, one round trip and one commit serve many requests. Each request still hears only after
// its row is committed (architecture decision 1: a 201 means the row is there).
import type { Database } from '../../storage/database.ts';
import { writeInHalves } from '../../storage/write-in-halves.ts';
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

  /**
   * One bad row must not fail its neighbours: written in halves, it fails alone (write-in-halves.ts).
   * A failure every row would meet (an outage, a statement refused whole) is answered to the rows
   * not written at once: written row by row, each would wait for it again.
   */
  private async insert(batch: Pending[]): Promise<void> {
    const stopped = await writeInHalves(
      batch,
      async (rows) => {
        await insertSms(this.db, rows.map((pending) => pending.sms), 'api');
        for (const pending of rows) pending.resolve();
      },
      (pending, error) => pending.reject(error),
    );
    if (stopped) for (const pending of stopped.rows) pending.reject(stopped.error);
  }
}
