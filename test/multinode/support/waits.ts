// Bounded waits on state that has no event of its own in another process (an SMS's status, a
// device's presence as a node answers it): polled, with a deadline, and timed.
import { eventually } from '../../support/eventually.ts';

/** Each check asks another process: not more often than this. */
export const POLL_MS = 20;

/**
 * Polls `check` until it returns something other than undefined or false; resolves with that
 * value and the milliseconds it took. Fails after `timeoutMs`, saying what it waited for and
 * what `describe` (if given) says of the last state.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  timeoutMs: number,
  describe?: () => string | Promise<string>,
): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  try {
    const value = await eventually(what, check, timeoutMs, POLL_MS);
    return { value, ms: performance.now() - started };
  } catch (error) {
    if (!describe) throw error;
    throw new Error(`${(error as Error).message} (${await describe()})`, { cause: error });
  }
}

/** Milliseconds, rounded, for the figures a test reports. */
export function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

/** Resolves with `promise`'s value, or fails with `what` once `timeoutMs` passed first. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${timeoutMs} ms`)), timeoutMs)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
