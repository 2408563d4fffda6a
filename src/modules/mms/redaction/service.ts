// The MMS side of an account's retention setting (the sweep, src/use-cases/retention-sweep.ts,
// drives it): a sent MMS loses its subject, and its recipients become hashes, once its sms row
// lost its text; a received MMS loses its text and subject, its sender and recipients becoming
// hashes; media (uploaded and received parts) older than the account keeps text are deleted,
// their files then removed through the queue their deletion wrote.
import type { Database } from '../../../storage/database.ts';
import type { Clock } from '../../../common/clock.ts';
import * as redaction from './repository.ts';

export class MmsRedaction {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** A batch of the account's sent MMS whose sms row was redacted; answers how many. */
  redactSent(accountId: string, batch: number, hash?: (phone: string) => string): Promise<number> {
    return redaction.redactSent(this.db, accountId, new Date(this.clock.now()), batch, hash);
  }

  /** A batch of the account's received MMS stored before `before`; answers how many. */
  redactReceived(accountId: string, before: Date, batch: number, hash?: (phone: string) => string): Promise<number> {
    return redaction.redactReceived(this.db, accountId, before, new Date(this.clock.now()), batch, hash);
  }

  /** A batch of the account's media stored before `before` that no queued MMS needs; answers how many. */
  deleteMediaBefore(accountId: string, before: Date, batch: number): Promise<number> {
    return redaction.deleteMediaBefore(this.db, accountId, before, batch);
  }
}
