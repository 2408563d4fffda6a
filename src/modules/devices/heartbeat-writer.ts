// Heartbeats are written many devices to a statement, a few writes at once, whatever the size of
// the fleet.
//
// Why: a fleet's heartbeats arrive in bursts (a phone network hands over many at once, a gateway
// restart brings the whole fleet back within seconds). Each written as a transaction of its own
// took four statements a phone and, written as they came, every connection of the pool for a
// moment: the SMS being created and claimed waited behind them (beside 19,000 idle phones the
// dispatch p99 grew several times). Here at most `atOnce` writes run at once, each taking the
// heartbeats of up to `maxBatch` devices that waited meanwhile, in the order they came.
//
// One write at a time per device: a device's heartbeat still waiting when its next one comes is
// replaced by it, in its place in the line (the newer says all the older said), so what waits is
// at most one heartbeat per connected device. The replaced one is answered once the newer one is
// written (or failed), as superseded: what the write changed is the newer one's to act on.
//
// A heartbeat that breaks its write (a value the database refuses) fails alone: the write is done
// again in halves until it is alone (write-in-halves.ts), and only its callers hear the error. A
// write the database fails whole (an outage) fails for all its callers: heartbeats are not held,
// the device's next one replaces them.
import { isUuid } from '../../common/object-id.ts';
import { writeInHalves } from '../../storage/write-in-halves.ts';
import type { DeviceRow, HeartbeatToWrite, HeartbeatValues } from './repository.ts';

/** What a heartbeat's caller hears: the device's row as written (none: deleted), or that a newer heartbeat was written in its place. */
export type HeartbeatWritten = { row: DeviceRow | undefined } | { superseded: true };

interface Caller {
  resolve: (written: HeartbeatWritten) => void;
  reject: (error: unknown) => void;
}

interface Waiting {
  values: HeartbeatValues;
  /** Whoever sent the device's heartbeats since its last write, oldest first: the last one sent `values`. */
  callers: Caller[];
}

export interface HeartbeatWriterOptions {
  /** Writes running at once. */
  atOnce: number;
  /** Devices per write. */
  maxBatch: number;
  /** How long a heartbeat waits for others to share its write, unless a write's worth waits already. */
  delayMs: number;
}

export class HeartbeatWriter {
  /** The newest unwritten heartbeat of each device, in the order the devices joined the line. */
  private readonly waiting = new Map<string, Waiting>();
  /** Devices whose heartbeat is being written now. */
  private readonly writing = new Set<string>();
  /** The writes under way. */
  private readonly running = new Set<Promise<void>>();
  private scheduled = false;

  constructor(
    /** One write of many devices' heartbeats; answers the rows written. */
    private readonly write: (batch: HeartbeatToWrite[]) => Promise<DeviceRow[]>,
    private readonly options: HeartbeatWriterOptions,
  ) {
    for (const name of ['atOnce', 'maxBatch'] as const) {
      if (!Number.isInteger(options[name]) || options[name] < 1) throw new RangeError(`heartbeat writes need ${name} of at least 1, not ${options[name]}`);
    }
  }

  /**
   * Queues the device's heartbeat, in place of the device's heartbeat still waiting if any.
   * Resolves once it is written (or the newer one that replaced it); rejects as its write did.
   */
  add(deviceId: string, values: HeartbeatValues): Promise<HeartbeatWritten> {
    // Not a device id the database could hold: nothing to write, as for a deleted device.
    if (!isUuid(deviceId)) return Promise.resolve({ row: undefined });
    const key = deviceId.toLowerCase();
    return new Promise((resolve, reject) => {
      const waiting = this.waiting.get(key);
      if (waiting) {
        waiting.values = values;
        waiting.callers.push({ resolve, reject });
      } else {
        this.waiting.set(key, { values, callers: [{ resolve, reject }] });
      }
      this.schedule();
    });
  }

  /** Writes what waits now, at once, and waits for every write under way: the database is about to close. */
  async drain(): Promise<void> {
    while (this.waiting.size > 0 || this.running.size > 0) {
      this.startWrites();
      await Promise.race(this.running);
    }
  }

  /**
   * The next writes start a moment later (at once when a write's worth waits): heartbeats that
   * come within it go in one write.
   */
  private schedule(): void {
    if (this.scheduled || this.running.size >= this.options.atOnce || this.waiting.size === 0) return;
    this.scheduled = true;
    const start = () => {
      this.scheduled = false;
      this.startWrites();
    };
    if (this.waiting.size >= this.options.maxBatch) setImmediate(start);
    else setTimeout(start, this.options.delayMs);
  }

  private startWrites(): void {
    while (this.running.size < this.options.atOnce) {
      const batch = this.nextBatch();
      if (batch.length === 0) return;
      for (const [deviceId] of batch) this.writing.add(deviceId);
      const written: Promise<void> = this.writeBatch(batch).finally(() => {
        this.running.delete(written);
        for (const [deviceId] of batch) this.writing.delete(deviceId);
        this.schedule();
      });
      this.running.add(written);
    }
  }

  /** Up to maxBatch waiting devices, oldest first, none of them being written now. */
  private nextBatch(): [string, Waiting][] {
    const batch: [string, Waiting][] = [];
    // At most atOnce·maxBatch devices are being written, so at most that many are skipped here.
    for (const [deviceId, waiting] of this.waiting) {
      if (batch.length >= this.options.maxBatch) break;
      if (this.writing.has(deviceId)) continue;
      batch.push([deviceId, waiting]);
    }
    for (const [deviceId] of batch) this.waiting.delete(deviceId);
    return batch;
  }

  private async writeBatch(batch: [string, Waiting][]): Promise<void> {
    const stopped = await writeInHalves(
      batch,
      async (part) => {
        const rows = await this.write(part.map(([id, { values }]) => ({ id, values })));
        const byId = new Map(rows.map((row) => [row.id.toLowerCase(), row]));
        for (const [id, { callers }] of part) answer(callers, byId.get(id));
      },
      ([, { callers }], error) => fail(callers, error),
    );
    if (stopped) for (const [, { callers }] of stopped.rows) fail(callers, stopped.error);
  }
}

/** The newest caller acts on the row written; those it replaced hear that they were. */
function answer(callers: Caller[], row: DeviceRow | undefined): void {
  callers.forEach((caller, index) => caller.resolve(index === callers.length - 1 ? { row } : { superseded: true }));
}

function fail(callers: Caller[], error: unknown): void {
  for (const caller of callers) caller.reject(error);
}
