// Admission control: the gateway refuses work it cannot finish soon instead of queueing it.
// A queue in front of a saturated process only adds latency (every request waits behind every
// other), so past a bound the answer is an immediate "come back later" (HTTP 503 + Retry-After,
// CONNACK 3 for a device), which costs almost nothing and keeps accepted requests fast.
//
// Two signals, either one refuses:
// - requests in flight: a hard bound on concurrent API work, so the database pool and the event
//   loop never hold more than they can turn over within a short time;
// - event-loop delay: when background work (reports, webhooks) already saturates the process,
//   even a few more requests would each wait that long. Saturation is a delay that lasts: two
//   windows in a row over the bound, so that one long block (a start, a large bulk) refuses nothing.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface AdmissionLimits {
  /** API requests processed at once; the next one is refused. */
  maxInFlight: number;
  /** Mean event-loop delay (ms) over the last window above which new work is refused; 0: no check. */
  maxEventLoopDelayMs: number;
}

export type RefusalReason = 'in_flight' | 'event_loop';

/** How often the event-loop delay is read (and its histogram reset). */
const WINDOW_MS = 250;
/** The histogram's sampling timer; what it records includes this period. */
const RESOLUTION_MS = 10;

export class Admission {
  private inFlight = 0;
  private loopDelayMs = 0;
  /** Windows in a row whose delay was over the bound. */
  private saturatedWindows = 0;
  private lastSample = performance.now();
  private readonly histogram: IntervalHistogram | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly refused: Record<RefusalReason, number> = { in_flight: 0, event_loop: 0 };

  constructor(private readonly limits: AdmissionLimits) {
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

  leave(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  /** Whether new work would be refused now (devices connecting ask this too). */
  overloaded(): RefusalReason | undefined {
    if (this.inFlight >= this.limits.maxInFlight) return 'in_flight';
    if (this.saturatedWindows >= 2) return 'event_loop';
    return undefined;
  }

  get current(): { inFlight: number; eventLoopDelayMs: number } {
    return { inFlight: this.inFlight, eventLoopDelayMs: this.loopDelayMs };
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
