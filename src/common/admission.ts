// Admission control: the gateway refuses work it cannot finish soon instead of queueing it.
// A queue in front of a saturated process only adds latency (every request waits behind every
// other), so past a bound the answer is an immediate "come back later" (HTTP 503 + Retry-After,
// CONNACK 3 for a device), which costs almost nothing and keeps accepted requests fast.
//
// Two signals, either one refuses:
// - requests in flight, against a limit that adapts to a target latency: a window (250 ms) whose
//   requests took longer on average than the target shrinks it, a window under the target in
//   which the limit turned requests away grows it, so it settles where accepted requests take
//   about the target, never above maxInFlight nor below 4;
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

export class Admission {
  private inFlight = 0;
  private limit: number;
  /** The requests that ended in the current window, and whether the limit refused any. */
  private window = { ended: 0, totalMs: 0, limited: false };
  private loopDelayMs = 0;
  /** Windows in a row whose delay was over the bound. */
  private saturatedWindows = 0;
  private lastTick = performance.now();
  private readonly histogram: IntervalHistogram | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly refused: Record<RefusalReason, number> = { in_flight: 0, event_loop: 0 };

  constructor(private readonly limits: AdmissionLimits) {
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
      if (reason === 'in_flight') this.window.limited = true;
      return reason;
    }
    this.inFlight++;
    return undefined;
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
    const now = performance.now();
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
   * cache) says nothing about load. Over the target, the limit shrinks by a fifth; under it, and
   * only if the limit turned requests away, it grows by a tenth (at least one place).
   */
  private adaptLimit(): void {
    const { ended, totalMs, limited } = this.window;
    this.window = { ended: 0, totalMs: 0, limited: false };
    if (this.limits.targetLatencyMs <= 0 || ended === 0) return;
    // What the next request would see: the time requests took plus the wait for the event loop.
    const latency = totalMs / ended + this.loopDelayMs;
    if (latency > this.limits.targetLatencyMs) {
      this.limit = Math.max(Math.min(MIN_LIMIT, this.limits.maxInFlight), this.limit * 0.8);
    } else if (limited) {
      this.limit = Math.min(this.limits.maxInFlight, this.limit + Math.max(1, this.limit * 0.1));
    }
  }
}
