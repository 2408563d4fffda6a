// The periodic side of RECORDINGS_RETENTION_DAYS: once at start, then every hour, expired
// recordings and their files are removed. A run that fails (the database away) is logged and
// the next one tries again; runs never overlap.
import type { Logger } from '../../../common/logger.ts';
import type { RecordingService } from './service.ts';
import { PeriodicRun } from '../../../common/periodic-run.ts';

const EVERY_MS = 3600 * 1000;

export class RecordingRetention extends PeriodicRun<number> {
  constructor(
    /** Recordings, or anything else kept for a number of days (MMS media). */
    recordings: Pick<RecordingService, 'expire'>,
    logger: Logger,
    everyMs = EVERY_MS,
  ) {
    super(() => recordings.expire(), {
      everyMs,
      runAtStart: true,
      failures: { logger, whileDatabaseDown: 'expired files removed at the next run', message: 'retention run failed' },
    });
  }
}
