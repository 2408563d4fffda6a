// The gateway's sense of time. Pacing, expiry and failover read the time from here (and pass it
// to SQL) instead of calling Date.now() or now(), so tests can move time forward at will.
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to: for tests of per-minute and per-hour limits. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.now()) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(at: number | Date): void {
    this.current = typeof at === 'number' ? at : at.getTime();
  }
}
