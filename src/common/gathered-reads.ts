// One read for many keys asked at about the same time: a reconnect storm asks the same question
// for thousands of devices within a second, and one statement for a group costs PostgreSQL far
// less than one per device. What is asked within a turn of the event loop joins one read; while
// a read runs, what is asked meanwhile waits for it and then goes in the next one. Right after a
// read (a storm under way) the next one waits a few milliseconds more, so that keys arriving one
// by one still share it. A key asked alone, after a quiet while, is read at the next turn: no
// timer, no latency worth noting.
export class GatheredReads<K, V> {
  private waiting = new Map<K, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]>();
  private scheduled = false;
  private running = false;
  /** When the last read started (performance.now()); -Infinity before the first. */
  private lastReadAt = Number.NEGATIVE_INFINITY;

  constructor(
    /** Reads the keys (at most `maxKeys` of them, no duplicates); a key missing from the answer gets undefined. */
    private readonly read: (keys: K[]) => Promise<Map<K, V>>,
    private readonly options: {
      maxKeys: number;
      /** How long keys gather for a read that follows another within `busyWithinMs`. */
      gatherMs: number;
      busyWithinMs: number;
    },
  ) {}

  /** The value read for `key`, by a read shared with the keys asked at about the same time. */
  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running || this.waiting.size === 0) return;
    this.scheduled = true;
    const flush = () => {
      this.scheduled = false;
      void this.flush();
    };
    const busy = performance.now() - this.lastReadAt < this.options.busyWithinMs;
    if (busy && this.waiting.size < this.options.maxKeys) setTimeout(flush, this.options.gatherMs);
    else setImmediate(flush);
  }

  private async flush(): Promise<void> {
    if (this.running || this.waiting.size === 0) return;
    this.running = true;
    this.lastReadAt = performance.now();
    const batch = new Map<K, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]>();
    for (const [key, waiters] of this.waiting) {
      if (batch.size >= this.options.maxKeys) break;
      batch.set(key, waiters);
    }
    for (const key of batch.keys()) this.waiting.delete(key);
    try {
      const values = await this.read([...batch.keys()]);
      for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(values.get(key));
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    } finally {
      this.running = false;
      this.schedule();
    }
  }
}
