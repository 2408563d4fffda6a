// Waiting in tests for state that announces itself with no event (a heartbeat stored, a file
// reloaded, a row written a few milliseconds after the change behind it). The one poll the
// suite has: helpers that wait (for another process, a port, a node of a cluster) call it.

/**
 * Resolves once `check` answers something other than undefined or false, checking every
 * `intervalMs` (10 ms unless a check is costly, as one that asks another process is), with what
 * it answered; fails after `timeoutMs`, naming `what` it waited for.
 */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5_000,
  intervalMs = 10,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
