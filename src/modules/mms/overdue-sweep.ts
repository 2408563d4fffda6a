// The periodic side of INCOMING_MMS_PARTS_WAIT_MS: once at start, then every minute, received MMS
// whose parts did not all come within the wait end with what they have (mms.received saying what
// is missing). A run that fails (the database away) is logged and the next one tries again; runs
// never overlap, and ending an MMS twice changes nothing (it is locked and ends once).
import type { Logger } from '../../common/logger.ts';
import { PeriodicRun } from '../../common/periodic-run.ts';
import type { MmsService } from './service.ts';

const EVERY_MS = 60 * 1000;

export class OverdueMmsSweep extends PeriodicRun<number> {
  constructor(mms: Pick<MmsService, 'endOverdue'>, logger: Logger, everyMs = EVERY_MS) {
    super(() => mms.endOverdue(), {
      everyMs,
      runAtStart: true,
      failures: { logger, whileDatabaseDown: 'overdue incoming MMS ended at the next run', message: 'overdue incoming MMS not ended' },
    });
  }
}
