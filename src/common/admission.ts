// Admission control: the gateway refuses work it cannot finish soon instead of queueing it.
// A queue in front of a saturated process only adds latency (every request waits behind every
// other), so past a bound the answer is an immediate "come back later" (HTTP 503 + Retry-After,
// CONNACK 3 for a device), which costs almost nothing and keeps accepted requests fast.
//
// Two signals, either one refuses:
// - requests in flight, against a limit that adapts (additive increase, multiplicative decrease,
//   as TCP finds a link's capacity): a request slower than the target latency cuts the limit by a
//   quarter (once a window), a fast one raises it by 1/limit, so the limit settles where accepted
//   requests take about the target, never above maxInFlight;
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

/** How often the event-loop delay is read (and its histogram reset). */
const WINDOW_MS = 250;
/** The histogram's sampling timer; what it records includes this period. */
const RESOLUTION_MS = 10;
/** The adaptive limit never goes below this: a gateway always serves a few requests at once. */
const MIN_LIMIT = 4;

export class Admission {
  private inFlight = 0;
  private limit: number;
  private lastCut = 0;
  private loopDelayMs = 0;
  /** Windows in a row whose delay was over the bound. */
  private saturatedWindows = 0;
  private lastSample = performance.now();
  private readonly histogram: IntervalHistogram | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly refused: Record<RefusalReason, number> = { in_flight: 0, event_loop: 0 };

  constructor(private readonly limits: AdmissionLimits) {
    this.limit = limits.maxInFlight;
    if (limits.maxEventLoopDelayMs > 0) {
      this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
      this.histogram.enable();
      this.timer = setInterval(() => this.sample(), WINDOW_MS);
      this.timer.unref();
    }
  }

  /** Takes a place for one unit of work, or says why there is none; `leave()` gives it back. */
  tryEnter(): RefusalReason | undefined {
    const reason = this.overloaded();
    if (reason) {
      this.refused[reason]++;
      return reason;
    }
    this.inFlight++;
    return undefined;
  }

  /** Gives the place back; `elapsedMs`, how long the work took, adapts the limit. */
  leave(elapsedMs?: number): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (elapsedMs === undefined || this.limits.targetLatencyMs <= 0) return;
    // What the next request would see: its own time plus the wait for the event loop.
    if (elapsedMs + this.loopDelayMs > this.limits.targetLatencyMs) {
      const now = performance.now();
      // The requests that end slow together saw one congestion: one cut per window.
      if (now - this.lastCut < WINDOW_MS) return;
      this.lastCut = now;
      this.limit = Math.max(Math.min(MIN_LIMIT, this.limits.maxInFlight), this.limit * 0.75);
    } else {
      this.limit = Math.min(this.limits.maxInFlight, this.limit + 1 / this.limit);
    }
  }

  /** Whether new work would be refused now (devices connecting ask this too). */
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

  private sample(): void {
    const histogram = this.histogram!;
    const now = performance.now();
    // The histogram holds each sampling period as it was observed (nanoseconds): the delay is what
    // exceeds the period. One block longer than the window leaves no sample at all, but shows as
    // this timer's own lateness.
    const mean = histogram.count > 0 ? histogram.mean / 1e6 - RESOLUTION_MS : 0;
    this.loopDelayMs = Math.max(0, mean, now - this.lastSample - WINDOW_MS);
    this.saturatedWindows = this.loopDelayMs > this.limits.maxEventLoopDelayMs ? this.saturatedWindows + 1 : 0;
    this.lastSample = now;
    histogram.reset();
  }
}
