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
      const startAt = Math.max(this.nextStartAt, this.pausedUntil);
      if (startAt > now) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, startAt - now);
        return;
      }
      this.nextStartAt = now + this.spacingMs;
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
