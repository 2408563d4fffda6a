// Work a timer repeats (expiring recordings, redacting old text, ending overdue USSD sessions)
// that must never run twice at once: a run asked for while one is under way joins it. Stopping
// waits for the run under way, so that it ends before what it uses (the database) closes.
import type { Logger } from './logger.ts';
import { OutageNotice } from './outage-notice.ts';

export interface PeriodicRunOptions {
  everyMs: number;
  /** The first run starts with the timer, instead of a period later. */
  runAtStart: boolean;
  /**
   * Failed runs logged here, a database outage as one state (a line when it begins and one when
   * it ends, not an error per run). Without it, the work logs its own failures.
   */
  failures?: { logger: Logger; whileDatabaseDown: string; message: string };
}

export class PeriodicRun<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T> | undefined;
  private readonly outage: OutageNotice | undefined;

  constructor(
    /** One run. Its failure reaches whoever asked for the run; the timer's own runs drop it. */
    private readonly work: () => Promise<T>,
    private readonly options: PeriodicRunOptions,
  ) {
    if (options.failures) this.outage = new OutageNotice(options.failures.logger, options.failures.whileDatabaseDown);
  }

  /** Starts the timer, unref'd (it keeps no process alive); starting it twice changes nothing. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runOnce().catch(() => undefined), this.options.everyMs);
    this.timer.unref();
    if (this.options.runAtStart) void this.runOnce().catch(() => undefined);
  }

  /** One run now, or the one under way. */
  runOnce(): Promise<T> {
    this.running ??= this.runLoggingFailure().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Stops the timer; resolves once a run under way has ended, however it ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private async runLoggingFailure(): Promise<T> {
    const { failures } = this.options;
    if (!failures || !this.outage) return this.work();
    const startedAt = Date.now();
    try {
      const result = await this.work();
      this.outage.succeeded(startedAt);
      return result;
    } catch (error) {
      if (!this.outage.failed(error)) failures.logger.error({ err: error }, failures.message);
      throw error;
    }
  }
}
