// The periodic side of RECORDINGS_RETENTION_DAYS: once at start, then every hour, expired
// recordings and their files are removed. A run that fails (the database away) is logged and
// the next one tries again; runs never overlap.
import type { Logger } from '../../../common/logger.ts';
import type { RecordingService } from './service.ts';
import { OutageNotice } from '../../../storage/database-errors.ts';

const EVERY_MS = 3600 * 1000;

export class RecordingRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly outage: OutageNotice;

  constructor(
    /** Recordings, or anything else kept for a number of days (MMS media). */
    private readonly recordings: Pick<RecordingService, 'expire'>,
    private readonly logger: Logger,
    private readonly everyMs = EVERY_MS,
  ) {
    this.outage = new OutageNotice(logger, 'expired files removed at the next run');
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runOnce(), this.everyMs);
    this.timer.unref();
    void this.runOnce();
  }

  /** One run now (or the one under way); what the timer calls. */
  runOnce(): Promise<void> {
    const startedAt = Date.now();
    this.running ??= this.recordings
      .expire()
      .then(() => this.outage.succeeded(startedAt))
      .catch((error: unknown) => {
        // A database outage is one state, logged when it begins, not an error per run.
        if (!this.outage.failed(error)) this.logger.error({ err: error }, 'retention run failed');
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Stops the timer and waits for a run under way (before the database closes). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
