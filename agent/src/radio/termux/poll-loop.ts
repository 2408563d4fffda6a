// Runs a poll, waits, runs it again. The next wait starts when a poll ends, so two never overlap
// however slow the phone answers; stop() waits for the poll under way.

export class PollLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly poll: () => Promise<void>,
  ) {}

  /** Polls at once, then every interval. */
  start(): void {
    this.stopped = false;
    this.runNow();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private runNow(): void {
    this.timer = undefined;
    // The poll reports its own failures; the loop only keeps going.
    this.running = this.poll()
      .catch(() => {})
      .finally(() => {
        this.running = undefined;
        if (!this.stopped) this.timer = setTimeout(() => this.runNow(), this.intervalMs);
      });
  }
}
