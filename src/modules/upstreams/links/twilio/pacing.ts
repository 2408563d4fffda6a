// The pace a link keeps with its provider: at most `maxConcurrent` requests on their way at once,
// starts spaced by 1/throughputPerSecond, and none while the provider asked to slow down.
// Submissions wait their turn in the order they came; a closed pacer lets none through.

/** Frees the place a request held. Idempotent. */
export type Release = () => void;

export class Pacer {
  private inFlight = 0;
  private nextStartAt = 0;
  private pausedUntil = 0;
  private readonly waiting: ((release: Release | undefined) => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly spacingMs: number;

  constructor(
    private readonly maxConcurrent: number,
    throughputPerSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.spacingMs = 1000 / throughputPerSecond;
  }

  /** Resolves with a place once the request may start, or undefined once the pacer is closed. */
  acquire(): Promise<Release | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.pump();
    });
  }

  /** No request starts before `at` (the provider's Retry-After). */
  pauseUntil(at: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, at);
  }

  /** Requests waiting for a place. */
  get queued(): number {
    return this.waiting.length;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const resolve of this.waiting.splice(0)) resolve(undefined);
  }

  private pump(): void {
    if (this.timer || this.closed) return;
    while (this.waiting.length > 0 && this.inFlight < this.maxConcurrent) {
      const now = this.now();
      // Starts due within the coming millisecond go now: a timer cannot wait less, and waiting
      // a whole one per start would hold a fast link to a thousand a second.
      const waitMs = Math.max(this.pausedUntil - now, this.nextStartAt - now >= 1 ? this.nextStartAt - now : 0);
      if (waitMs > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, waitMs);
        return;
      }
      // The schedule advances from where it stood while a timer's lateness (under one spacing)
      // is all that put it behind, so the rate over time is the one asked for; an idle link
      // starts afresh, with no burst saved up.
      this.nextStartAt = (now - this.nextStartAt < this.spacingMs ? this.nextStartAt : now) + this.spacingMs;
      this.inFlight++;
      this.waiting.shift()!(this.releaser());
    }
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.pump();
    };
  }
}
