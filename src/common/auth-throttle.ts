// Failed authentications per client address, and the refusal of an address that has had too
// many: the HTTP API (bearer keys) and the MQTT broker (device tokens, operators' API keys)
// share one throttle, so a guesser gains nothing by switching between them.
//
// A refused address is answered at once (HTTP 429 with Retry-After, CONNACK 5 after a delay)
// without its key being looked up or hashed: a brute force costs the gateway next to nothing
// and the guesser a window per few attempts. A valid key from a refused address is refused too,
// until the refusal ends: checking it would make every guess cost a key lookup again, and a
// guesser's address is not one whose requests should be served anyway. Other addresses are
// never touched; a client that presents a valid key is not slowed by any of this (one map read).
//
// Failures are counted in a leaky bucket per address that drains `failureLimit` per `windowMs`:
// its level is a sliding count of recent failures, in constant memory per address. Reaching the
// limit refuses the address for `windowMs`, after which it starts again from zero. The table is
// bounded: past MAX_TRACKED_ADDRESSES the least recently failed address is forgotten.
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import { clientAddressKey } from './client-address.ts';

export interface AuthThrottleLimits {
  /** Failed authentications within `windowMs` that get an address refused. */
  failureLimit: number;
  /** The window failures are counted in, and how long a refusal lasts. */
  windowMs: number;
}

/** http / mqtt: a client address presenting keys or device tokens; login_email: one user's logins, from any address. */
export type AuthChannel = 'http' | 'mqtt' | 'login_email';

/** About 100 bytes each: the table stays around a megabyte however many addresses guess. */
export const MAX_TRACKED_ADDRESSES = 10_000;

interface Failures {
  /** Recent failures, drained at failureLimit per windowMs since `at`. */
  level: number;
  at: number;
  /** Until when the address is refused (ms since the epoch); 0: not refused. */
  refusedUntil: number;
}

export class AuthThrottle {
  private readonly addresses = new Map<string, Failures>();

  constructor(
    private readonly limits: AuthThrottleLimits,
    private readonly clock: Clock,
    private readonly observe: { metrics: Metrics; logger: Logger },
    private readonly maxTracked = MAX_TRACKED_ADDRESSES,
  ) {}

  /** How long (ms) the address stays refused; 0 when it may authenticate. Counts a refusal. */
  refusedFor(address: string | undefined, channel: AuthChannel): number {
    const failures = this.addresses.get(clientAddressKey(address));
    const left = failures ? failures.refusedUntil - this.clock.now() : 0;
    if (left <= 0) return 0;
    this.observe.metrics.count('auth_throttled_total', 'authentications refused unchecked: the client address had too many failures', { channel });
    return left;
  }

  /** Records a failed authentication from the address. */
  failed(address: string | undefined, channel: AuthChannel): void {
    const key = clientAddressKey(address);
    const now = this.clock.now();
    let failures = this.addresses.get(key);
    if (failures) {
      // Moved to the end: the map's order is the order of the last failure, oldest first.
      this.addresses.delete(key);
    } else {
      failures = { level: 0, at: now, refusedUntil: 0 };
      if (this.addresses.size >= this.maxTracked) this.addresses.delete(this.addresses.keys().next().value!);
    }
    this.addresses.set(key, failures);
    this.observe.metrics.count('auth_failures_total', 'failed authentications (wrong or unknown key, token or password)', { channel });
    if (failures.refusedUntil > now) return;
    const drained = (Math.max(0, now - failures.at) * this.limits.failureLimit) / this.limits.windowMs;
    failures.level = Math.max(0, failures.level - drained) + 1;
    failures.at = now;
    if (failures.level < this.limits.failureLimit) return;
    failures.level = 0;
    failures.refusedUntil = now + this.limits.windowMs;
    this.observe.metrics.count('auth_throttle_refusals_started_total', 'client addresses refused for too many failed authentications');
    const limits = { failures: this.limits.failureLimit, windowSeconds: this.limits.windowMs / 1000 };
    // An email's key is derived from its hash: it says nothing about the user, and is no address.
    if (channel === 'login_email') this.observe.logger.warn({ channel, ...limits }, 'logins to one user refused: too many wrong passwords');
    else this.observe.logger.warn({ address: key, channel, ...limits }, 'client address refused: too many failed authentications');
  }

  /** Addresses tracked now (for tests of the memory bound). */
  get size(): number {
    return this.addresses.size;
  }
}
