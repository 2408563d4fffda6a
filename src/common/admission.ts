// Admission control: the gateway refuses work it cannot finish soon instead of queueing it.
// A queue in front of a saturated process only adds latency (every request waits behind every
// other), so past a bound the answer is an immediate "come back later" (HTTP 503 + Retry-After,
// CONNACK 3 for a device), which costs almost nothing and keeps accepted requests fast.
//
// Two signals, either one refuses:
// - requests in flight, against a limit that adapts to a target latency: a window (250 ms) whose
//   requests took longer on average than the target shrinks it, a window under the target grows
//   it, so it settles where accepted requests take about the target, never above maxInFlight nor
//   below 4. It grows back on its own: a limit that only grew while it turned requests away would
//   stay low after one bad episode, and its first victims would be the ordinary clients that come
//   next. A window in which nothing ran and nothing waited is no sign of load either: it grows too;
// - a request counts only while the gateway works on it: one waiting for its client (a body that
//   trickles in) gives its place back until the body is in (see Ticket), so slow clients neither
//   hold the places of others nor teach the limit that requests are slow;
// - event-loop delay: when background work (reports, webhooks) already saturates the process,
//   even a few more requests would each wait that long. Saturation is a delay that lasts: two
//   windows in a row over the bound, so that one long block (a start, a large bulk) refuses nothing.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface AdmissionLimits {
  /** API requests processed at once at most; the next one is refused. */
  maxInFlight: number;
  /** Latency (ms) accepted requests should keep; the in-flight limit adapts to it. 0: fixed at maxInFlight. */
  targetLatencyMs: number;
  /** Mean event-loop delay (ms) over the last window above which new work is refused; 0: no check. */
  maxEventLoopDelayMs: number;
}

export type RefusalReason = 'in_flight' | 'event_loop';

/** How often the signals are read: event-loop delay, and the latency of the requests that ended. */
const WINDOW_MS = 250;
/** The histogram's sampling timer; what it records includes this period. */
const RESOLUTION_MS = 10;
/** The adaptive limit never goes below this: a gateway always serves a few requests at once. */
const MIN_LIMIT = 4;
/** Growth of the limit per fast window, while it turns requests away and while it does not. */
const GROWTH_BINDING = 1.25;
const GROWTH_UNBOUND = 1.5;

export class Admission {
  private inFlight = 0;
  private limit: number;
  /** The requests that ended in the current window, and whether the limit refused any. */
  private window = { ended: 0, totalMs: 0, limited: false };
  private loopDelayMs = 0;
  /** Windows in a row whose delay was over the bound. */
  private saturatedWindows = 0;
  private lastTick: number;
  /** When a request was last refused (the clock's ms); -Infinity: never. */
  private lastRefusedAt = -Infinity;
  private readonly histogram: IntervalHistogram | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly refused: Record<RefusalReason, number> = { in_flight: 0, event_loop: 0 };

  /** `now`: milliseconds on a monotonic clock; tests pass one they move. */
  constructor(
    private readonly limits: AdmissionLimits,
    readonly now: () => number = () => performance.now(),
  ) {
    this.lastTick = now();
    this.limit = limits.maxInFlight;
    if (limits.maxEventLoopDelayMs > 0) {
      this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
      this.histogram.enable();
    }
    if (limits.maxEventLoopDelayMs > 0 || limits.targetLatencyMs > 0) {
      this.timer = setInterval(() => this.tick(), WINDOW_MS);
      this.timer.unref();
    }
  }

  /** Takes a place for one unit of work, or says why there is none; `leave()` gives it back. */
  tryEnter(): RefusalReason | undefined {
    const reason = this.overloaded();
    if (reason) {
      this.refused[reason]++;
      this.lastRefusedAt = this.now();
      if (reason === 'in_flight') this.window.limited = true;
      return reason;
    }
    this.inFlight++;
    return undefined;
  }

  /** Takes a place for one request, as a Ticket that can be suspended while the client is slow; or says why not. */
  admit(): Ticket | RefusalReason {
    return this.tryEnter() ?? new Ticket(this);
  }

  /**
   * Whether the gateway is refusing work, or did within the last two windows: what readiness
   * reports, so that a balancer sends elsewhere while this node turns requests away.
   */
  busy(): boolean {
    return this.overloaded() !== undefined || this.now() - this.lastRefusedAt < 2 * WINDOW_MS;
  }

  /** Gives the place back; `elapsedMs`, how long the work took, feeds the adaptive limit. */
  leave(elapsedMs?: number): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (elapsedMs === undefined) return;
    this.window.ended++;
    this.window.totalMs += elapsedMs;
  }

  /** Whether new work would be refused now. */
  overloaded(): RefusalReason | undefined {
    if (this.inFlight >= Math.floor(this.limit)) return 'in_flight';
    if (this.saturated()) return 'event_loop';
    return undefined;
  }

  /**
   * Whether the process itself is saturated (the event loop lags window after window), whatever
   * the API has in flight: what a device's CONNECT asks, since a reconnect storm is CPU-bound work.
   */
  saturated(): boolean {
    return this.saturatedWindows >= 2;
  }

  get current(): { inFlight: number; limit: number; eventLoopDelayMs: number } {
    return { inFlight: this.inFlight, limit: Math.floor(this.limit), eventLoopDelayMs: Math.round(this.loopDelayMs) };
  }

  refusedCount(reason: RefusalReason): number {
    return this.refused[reason];
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.histogram?.disable();
  }

  /** Closes the current window: reads the event-loop delay, then adapts the limit. Every WINDOW_MS. */
  tick(): void {
    this.readLoopDelay();
    this.adaptLimit();
  }

  private readLoopDelay(): void {
    const now = this.now();
    const histogram = this.histogram;
    if (histogram) {
      // The histogram holds each sampling period as it was observed (nanoseconds): the delay is
      // what exceeds the period. One block longer than the window leaves no sample at all, but
      // shows as this timer's own lateness.
      const mean = histogram.count > 0 ? histogram.mean / 1e6 - RESOLUTION_MS : 0;
      this.loopDelayMs = Math.max(0, mean, now - this.lastTick - WINDOW_MS);
      this.saturatedWindows = this.loopDelayMs > this.limits.maxEventLoopDelayMs ? this.saturatedWindows + 1 : 0;
      histogram.reset();
    }
    this.lastTick = now;
  }

  /**
   * Judged on a whole window, not on single requests: one slow request (a large bulk, a cold
   * cache) says nothing about load. Over the target, the limit shrinks by a fifth. Under it, it
   * grows: by a quarter while it turns requests away (it is what holds them back, so carefully),
   * by half when it does not (it binds nothing: growing it risks nothing, and the next burst of
   * an ordinary client then meets the full limit instead of a low one left by the last episode).
   * An idle window (nothing ended, nothing in flight) grows it by half too, so that a quiet node
   * recovers without needing requests to be refused first.
   */
  private adaptLimit(): void {
    const { ended, totalMs, limited } = this.window;
    this.window = { ended: 0, totalMs: 0, limited: false };
    if (this.limits.targetLatencyMs <= 0) return;
    if (ended === 0) {
      // Requests under way for a whole window without one ending: no sign either way, so hold.
      if (this.inFlight === 0 && this.loopDelayMs <= this.limits.targetLatencyMs) this.grow(GROWTH_UNBOUND);
      return;
    }
    // What the next request would see: the time requests took plus the wait for the event loop.
    const latency = totalMs / ended + this.loopDelayMs;
    if (latency > this.limits.targetLatencyMs) {
      this.limit = Math.max(Math.min(MIN_LIMIT, this.limits.maxInFlight), this.limit * 0.8);
    } else {
      this.grow(limited ? GROWTH_BINDING : GROWTH_UNBOUND);
    }
  }

  private grow(factor: number): void {
    this.limit = Math.min(this.limits.maxInFlight, Math.max(this.limit + 1, this.limit * factor));
  }
}

/**
 * One admitted request's place. While the gateway waits for the client (the body arriving), the
 * place is given back (`suspend`) and taken again when the body is in (`resume`, which may be
 * refused like a new request). The time it held a place is its latency for the adaptive limit.
 */
export class Ticket {
  private holding = true;
  private ended = false;
  private workedMs = 0;
  private since: number;

  constructor(private readonly admission: Admission) {
    this.since = admission.now();
  }

  /** Gives the place back while the request waits for its client; its time does not count. */
  suspend(): void {
    if (!this.holding || this.ended) return;
    this.workedMs += this.admission.now() - this.since;
    this.holding = false;
    this.admission.leave();
  }

  /** Takes a place again once the client has delivered; says why not when the gateway is overloaded. */
  resume(): RefusalReason | undefined {
    if (this.holding || this.ended) return undefined;
    const refused = this.admission.tryEnter();
    if (refused) return refused;
    this.holding = true;
    this.since = this.admission.now();
    return undefined;
  }

  /** The request is over: the place is given back, and its working time feeds the adaptive limit. */
  leave(): void {
    if (this.ended) return;
    this.ended = true;
    // Ended while waiting for its client (a body deadline, a client gone): nothing held, nothing learnt.
    if (!this.holding) return;
    this.admission.leave(this.workedMs + this.admission.now() - this.since);
  }
}
