// Who may send the next submit_sm: first come, first served, once the window has room (at most
// `windowSize` awaiting their submit_sm_resp), the bucket has a token and the provider's request
// to slow down has passed. Each part of a long SMS passes the gate on its own, as each is a
// submit_sm the provider counts.
import type { Clock } from '../../../../common/clock.ts';
import { TokenBucket } from './token-bucket.ts';

/** A place in the window; release it when the submit_sm_resp came (or never will). */
export type WindowSlot = { release(): void };

interface Waiter {
  resolve(slot: WindowSlot | undefined): void;
}

export class SubmitGate {
  private readonly queue: Waiter[] = [];
  private readonly bucket: TokenBucket;
  private inFlight = 0;
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = 0;

  constructor(
    private readonly windowSize: number,
    perSecond: number,
    private readonly clock: Clock,
  ) {
    this.bucket = new TokenBucket(perSecond, clock);
  }

  /** submit_sm sent and not answered yet. */
  get outstanding(): number {
    return this.inFlight;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves with a slot when this submission's turn comes; undefined when the gate was shut meanwhile. */
  enter(): Promise<WindowSlot | undefined> {
    return new Promise((resolve) => {
      this.queue.push({ resolve });
      this.pump();
    });
  }

  /** No submission passes before `until` (clock time). */
  pauseUntil(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  /** Everyone waiting is turned away (the link went down or closed). */
  shut(): void {
    for (const waiter of this.queue.splice(0)) waiter.resolve(undefined);
    this.clearTimer();
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.windowSize) {
      const wait = Math.max(this.pausedUntil - this.clock.now(), 0) || this.bucket.msUntilToken();
      if (wait > 0) return this.wakeIn(wait);
      this.bucket.take();
      this.inFlight++;
      let released = false;
      this.queue.shift()!.resolve({
        release: () => {
          if (released) return;
          released = true;
          this.inFlight--;
          this.pump();
        },
      });
    }
  }

  private wakeIn(ms: number): void {
    const at = Date.now() + ms;
    if (this.timer && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, ms);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
