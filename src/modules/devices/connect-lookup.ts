// Finds the devices that CONNECT packets name, many per query.
//
// Every CONNECT needs its device's row (token hash, account, settings) before the broker can
// answer. A reconnect storm brings thousands of CONNECTs within a second; one query each would
// queue them all on the pool, one round trip at a time, behind everything else the devices cause.
// Each lookup still reads the row after its CONNECT arrived, so revocation (token hash cleared,
// deleted_at set) takes effect for the next CONNECT as before.
import type { Database } from '../../storage/database.ts';
import { findLiveDevices, type DeviceRow } from './repository.ts';
import { isUuid } from '../../common/object-id.ts';

/** Ids per query. */
const MAX_BATCH = 1000;

interface Waiting {
  resolve: (device: DeviceRow | undefined) => void;
  reject: (error: unknown) => void;
}

export class ConnectLookup {
  private waiting = new Map<string, Waiting[]>();
  private running = false;

  constructor(private readonly db: Database) {}

  /** The live (not deleted) device with this id, as findLiveDevice answers it. */
  find(id: string): Promise<DeviceRow | undefined> {
    if (!isUuid(id)) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const key = id.toLowerCase();
      const entry = this.waiting.get(key);
      if (entry) entry.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      if (!this.running) void this.run();
    });
  }

  /**
   * One query at a time: a lookup asked for while a query runs waits for the next one, which
   * takes everything that arrived meanwhile. An idle gateway answers each CONNECT at once; a busy
   * one answers hundreds with a query, and the busier it is the larger the batches.
   */
  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.size > 0) {
        const batch = [...this.waiting].slice(0, MAX_BATCH);
        for (const [id] of batch) this.waiting.delete(id);
        await this.query(batch);
      }
    } finally {
      this.running = false;
    }
  }

  private async query(batch: [string, Waiting[]][]): Promise<void> {
    try {
      const rows = await findLiveDevices(this.db, batch.map(([id]) => id));
      const byId = new Map(rows.map((row) => [row.id.toLowerCase(), row]));
      for (const [id, waiters] of batch) {
        const row = byId.get(id);
        // Two CONNECTs of one device (a takeover) each get their own copy of the row.
        waiters.forEach((waiter, i) => waiter.resolve(row && i > 0 ? { ...row } : row));
      }
    } catch (error) {
      for (const [, waiters] of batch) for (const waiter of waiters) waiter.reject(error);
    }
  }
}
