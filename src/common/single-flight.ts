// Work that must not run twice at once for the same key (claiming tasks for one device, offering
// one account's pool), and must not be lost when asked for while it runs: what the running pass
// read may predate the ask, so one more pass follows it. Asks during a run fold into that one.
export class SingleFlight<K> {
  private readonly running = new Map<K, Promise<void>>();
  private readonly again = new Set<K>();

  constructor(
    private readonly work: (key: K) => Promise<unknown>,
    private readonly failed: (error: unknown, key: K) => void,
  ) {}

  /** Runs the work for `key`, or, while it runs, asks for one more run after it; resolves when the current run ends. */
  run(key: K): Promise<void> {
    const running = this.running.get(key);
    if (running) {
      this.again.add(key);
      return running;
    }
    const run = this.work(key)
      .then(() => undefined)
      .catch((error: unknown) => this.failed(error, key))
      .finally(() => {
        this.running.delete(key);
        if (this.again.delete(key)) void this.run(key);
      });
    this.running.set(key, run);
    return run;
  }

  /** Resolves once every run under way has ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }
}
