// A credential's throughput limit: a token bucket of `perSecond` tokens, refilled continuously,
// shared by every session of the credential on this node. A submission that finds it empty is
// answered ESME_RTHROTTLED at once (architecture decision 7: refuse, do not queue).
import type { Clock } from '../../common/clock.ts';

export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly perSecond: number,
    private readonly clock: Clock,
  ) {
    this.tokens = perSecond;
    this.updatedAt = clock.now();
  }

  /** Takes `count` tokens when there are that many; false (taking none) otherwise. */
  take(count = 1): boolean {
    const now = this.clock.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.updatedAt) / 1000) * this.perSecond);
    this.updatedAt = now;
    if (this.tokens < count) return false;
    this.tokens -= count;
    return true;
  }
}
