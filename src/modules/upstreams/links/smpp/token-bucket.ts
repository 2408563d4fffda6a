// The link's throughput: a token bucket filled at `perSecond`, read from the clock so that a test
// can move time by hand. It holds a tenth of a second's tokens (at least one), so that in any
// second at most `perSecond` plus that tenth go out: providers count submissions per second,
// and a full second's burst on top of the steady rate would be twice what they allow.
import type { Clock } from '../../../../common/clock.ts';

export class TokenBucket {
  private tokens: number;
  private filledAt: number;
  readonly capacity: number;

  constructor(
    private readonly perSecond: number,
    private readonly clock: Clock,
  ) {
    this.capacity = Math.max(1, Math.ceil(perSecond / 10));
    this.tokens = this.capacity;
    this.filledAt = clock.now();
  }

  /** Takes a token when there is one. */
  take(): boolean {
    this.fill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** How long until a token is there (0: now). */
  msUntilToken(): number {
    this.fill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1000) / this.perSecond);
  }

  private fill(): void {
    const now = this.clock.now();
    // A clock set back (a test, a corrected system clock) fills nothing; it never empties the bucket.
    const elapsed = Math.max(0, now - this.filledAt);
    this.tokens = Math.min(this.capacity, this.tokens + (elapsed * this.perSecond) / 1000);
    this.filledAt = now;
  }
}
