// Long loops over a bulk send's messages hand the event loop back every few milliseconds, so
// other requests (another account's single send) are served in between. Awaiting a promise that
// is already settled does not do that: only a macrotask (setImmediate) lets pending I/O run.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/** Longest run of work before the event loop is handed back. */
export const SLICE_MS = 5;

/** Measures a loop's run since it last yielded; `pause` yields once the run is long enough. */
export class Slices {
  private started = performance.now();

  async pause(): Promise<void> {
    if (performance.now() - this.started <= SLICE_MS) return;
    await yieldToEventLoop();
    this.started = performance.now();
  }
}

/** `items.map(each)`, yielding between slices. */
export async function mapInSlices<T, R>(items: readonly T[], each: (item: T) => R): Promise<R[]> {
  const slices = new Slices();
  const results: R[] = [];
  for (const item of items) {
    await slices.pause();
    results.push(each(item));
  }
  return results;
}
