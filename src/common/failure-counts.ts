// Recent failures per key (a client address, a login, a key prefix), with two thresholds: past
// the first the key is "throttled" (its further failures are answered "slow down"), past the
// second it is "blocked" (nothing from it is even checked) for a window.
//
// Each key's count is a leaky bucket that drains `limit` per `windowMs`: its level is a sliding
// count of recent failures, in constant memory per key. Failures at or below the drain rate never
// add up; a burst, or a sustained rate above it, does. A block lasts `windowMs`, after which the
// key starts again from zero (its level would otherwise re-block it on the next failure, and a
// client that paused a whole window deserves a fresh start).
//
// The table is bounded: past `maxTracked` keys the least recently failed one is forgotten, except
// that a blocked key is passed over (a few of them) so that a flood of new keys cannot buy a
// blocked one its freedom by pushing it out.
import type { Clock } from './clock.ts';

export interface FailureLimits {
  /** Failures within `windowMs` that throttle the key (for `windowMs`). */
  limit: number;
  /** Failures that block the key outright (for `windowMs`); Infinity: never blocked. */
  blockAt: number;
  /** The window failures are counted in, and how long a throttle or a block lasts. */
  windowMs: number;
}

/** What a failure just changed: the key became throttled or blocked (each said once, for the log). */
export type FailureStep = 'throttled' | 'blocked' | undefined;

interface Bucket {
  /** Recent failures, drained at `limit` per `windowMs` since `at`. */
  level: number;
  at: number;
  /** Until when (the clock's ms) failures are answered "slow down"; 0: not throttled. */
  throttledUntil: number;
  /** Until when nothing is checked at all; 0: not blocked. */
  blockedUntil: number;
}

/** How many of the oldest keys an eviction looks through for one that is not blocked. */
const EVICTION_SCAN = 8;

export class FailureCounts {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: FailureLimits,
    private readonly clock: Clock,
    private readonly maxTracked: number,
  ) {}

  /** Milliseconds the key stays blocked; 0 when it is not. */
  blockedFor(key: string): number {
    const bucket = this.buckets.get(key);
    return bucket ? Math.max(0, bucket.blockedUntil - this.clock.now()) : 0;
  }

  /** Milliseconds the key stays throttled (a block included); 0 when it is not. */
  throttledFor(key: string): number {
    const bucket = this.buckets.get(key);
    return bucket ? Math.max(0, bucket.throttledUntil - this.clock.now()) : 0;
  }

  /** Records one failure of the key; says whether it has just become throttled or blocked. */
  add(key: string): FailureStep {
    const now = this.clock.now();
    const bucket = this.touch(key, now);
    // Checked before it was blocked (requests under way at once): nothing more to count.
    if (bucket.blockedUntil > now) return undefined;
    if (bucket.blockedUntil !== 0) Object.assign(bucket, { level: 0, at: now, throttledUntil: 0, blockedUntil: 0 });
    const drained = (Math.max(0, now - bucket.at) * this.limits.limit) / this.limits.windowMs;
    bucket.level = Math.max(0, bucket.level - drained) + 1;
    bucket.at = now;
    // Rounded: N failures a few milliseconds apart are N failures, not N minus what drained meanwhile.
    const failures = Math.round(bucket.level);
    if (failures >= this.limits.blockAt) {
      bucket.blockedUntil = now + this.limits.windowMs;
      bucket.throttledUntil = bucket.blockedUntil;
      return 'blocked';
    }
    if (failures >= this.limits.limit && bucket.throttledUntil <= now) {
      bucket.throttledUntil = now + this.limits.windowMs;
      return 'throttled';
    }
    return undefined;
  }

  /** Keys tracked now (for tests of the memory bound). */
  get size(): number {
    return this.buckets.size;
  }

  /** The key's bucket, moved to the end: the map's order is the order of the last failure, oldest first. */
  private touch(key: string, now: number): Bucket {
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key);
    } else {
      bucket = { level: 0, at: now, throttledUntil: 0, blockedUntil: 0 };
      if (this.buckets.size >= this.maxTracked) this.evictOne(now);
    }
    this.buckets.set(key, bucket);
    return bucket;
  }

  private evictOne(now: number): void {
    let oldest: string | undefined;
    let scanned = 0;
    for (const [key, bucket] of this.buckets) {
      oldest ??= key;
      if (bucket.blockedUntil <= now) return void this.buckets.delete(key);
      if (++scanned >= EVICTION_SCAN) break;
    }
    if (oldest !== undefined) this.buckets.delete(oldest);
  }
}
