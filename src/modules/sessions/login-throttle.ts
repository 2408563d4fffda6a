// Failed logins are counted in the throttle's login channel (src/common/auth-throttle.ts): per
// client address, so that a throttled address's right password still logs in, and per email, so
// that a guesser spreading over many addresses gets a few tries per window at one user's password.
import { createHash } from 'node:crypto';
import type { AuthAttempt, AuthThrottle } from '../../common/auth-throttle.ts';

/**
 * What the throttle counts an email by: a digest, so that no email is kept in the throttle's
 * memory nor written in its log lines.
 */
export function emailThrottleKey(email: string): string {
  return `login:${createHash('sha256').update(email).digest('hex').slice(0, 32)}`;
}

export class LoginThrottle {
  constructor(private readonly throttle: AuthThrottle) {}

  /** How long (ms) a login from this address for this email is refused unchecked; 0: check it. */
  refusedFor(address: string | undefined, email: string): number {
    return this.throttle.refusedFor(attempt(address, email));
  }

  /** Records a wrong password; how long (ms) the client should wait (a 429), or 0 (a plain 401). */
  failed(address: string | undefined, email: string): number {
    return this.throttle.failed(attempt(address, email));
  }
}

function attempt(address: string | undefined, email: string): AuthAttempt {
  return { channel: 'login', address, credential: emailThrottleKey(email) };
}
