// How long a lost or refused bind waits before it tries again: 1 s, doubling up to 60 s, each
// wait drawn between half and all of it, so that links dropped together (an SMSC restarting) do
// not all come back in the same second. A bind that holds starts the count again.
export const BACKOFF_FIRST_MS = 1_000;
export const BACKOFF_MOST_MS = 60_000;

export class Backoff {
  private failures = 0;

  constructor(private readonly random: () => number = Math.random) {}

  /** The wait before the next attempt, counting this failure. */
  next(): number {
    const ceiling = Math.min(BACKOFF_MOST_MS, BACKOFF_FIRST_MS * 2 ** Math.min(this.failures, 16));
    this.failures++;
    return Math.round(ceiling * (0.5 + this.random() / 2));
  }

  reset(): void {
    this.failures = 0;
  }
}
