// Heartbeats are written to the database a few at a time, whatever the size of the fleet. Each is
// a transaction of its own; written as they came, a fleet's heartbeats arrive in bursts (a phone
// network hands over many at once) that took every connection of the pool for a moment, and the
// SMS being created and claimed waited behind them: beside 19,000 idle phones the dispatch p99
// grew several times. Here at most `atOnce` are written at once, in the order they came, one at a
// time per device; a device's heartbeat still waiting when its next one comes is replaced by it,
// in its place in the line (the newer says all the older said), so what waits is at most one
// heartbeat per connected device.

interface Waiting {
  write: () => Promise<void>;
  /** Whoever queued this device's heartbeats since its last write: told how the newest one went. */
  callers: { resolve: () => void; reject: (error: unknown) => void }[];
}

export class HeartbeatWrites {
  /** The newest unwritten heartbeat of each device, in the order the devices joined the line. */
  private readonly waiting = new Map<string, Waiting>();
  /** Devices whose heartbeat is being written now. */
  private readonly writing = new Set<string>();

  constructor(private readonly atOnce: number) {
    if (!Number.isInteger(atOnce) || atOnce < 1) throw new RangeError(`heartbeats need at least one write at once, not ${atOnce}`);
  }

  /**
   * Queues the device's heartbeat write, in place of the device's write still waiting if any.
   * Resolves once it is written (or the newer one that replaced it); rejects as that write did.
   */
  add(deviceId: string, write: () => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiting = this.waiting.get(deviceId);
      if (waiting) {
        waiting.write = write;
        waiting.callers.push({ resolve, reject });
      } else {
        this.waiting.set(deviceId, { write, callers: [{ resolve, reject }] });
      }
      this.next();
    });
  }

  private next(): void {
    // At most `atOnce` devices are being written, so at most that many are skipped here.
    for (const [deviceId, { write, callers }] of this.waiting) {
      if (this.writing.size >= this.atOnce) return;
      if (this.writing.has(deviceId)) continue;
      this.waiting.delete(deviceId);
      this.writing.add(deviceId);
      void Promise.resolve()
        .then(write)
        .then(
          () => callers.forEach((caller) => caller.resolve()),
          (error: unknown) => callers.forEach((caller) => caller.reject(error)),
        )
        .finally(() => {
          this.writing.delete(deviceId);
          this.next();
        });
    }
  }
}
