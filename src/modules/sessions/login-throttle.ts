// Failed logins are throttled per client address (the throttle the API keys and the broker
// share, so switching between them gains a guesser nothing) and per email (so a guesser with
// many addresses still gets a few tries per window at one user's password).
import { createHash } from 'node:crypto';
import type { AuthThrottle } from '../../common/auth-throttle.ts';

/**
 * The per-email throttle counts by client-address key; an email is turned into a made-up IPv6
 * /64 (fd00::/8, never routed) derived from its hash, which that key takes as it is. The email
 * itself is never stored in the table nor written in the throttle's log line.
 */
export function emailThrottleKey(email: string): string {
  const hex = createHash('sha256').update(email).digest('hex');
  return `fd${hex.slice(0, 2)}:${hex.slice(2, 6)}:${hex.slice(6, 10)}:${hex.slice(10, 14)}::/64`;
}

export class LoginThrottle {
  constructor(
    private readonly byAddress: AuthThrottle,
    private readonly byEmail: AuthThrottle,
  ) {}

  /** How long (ms) a login from this address for this email stays refused; 0: it may try. */
  refusedFor(address: string | undefined, email: string): number {
    return Math.max(this.byAddress.refusedFor(address, 'http'), this.byEmail.refusedFor(emailThrottleKey(email), 'login_email'));
  }

  failed(address: string | undefined, email: string): void {
    this.byAddress.failed(address, 'http');
    this.byEmail.failed(emailThrottleKey(email), 'login_email');
  }
}
