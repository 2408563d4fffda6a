// An ESME replaces an SMS it submitted over SMPP (replace_sm) before any phone took it: its text,
// and optionally when it may be sent, how long it stays valid and which receipt the ESME wants.
// The SMS row (delivery), its SMPP record (smpp) and whether the phone holding its task can be
// told to drop it (devices' presence) change together, in one transaction.
//
// A task already handed to a phone that has not acknowledged it is taken back and the phone is
// told to drop it (a revoke, as for a cancelled task), before the SMS is queued again with its new
// text; a phone acknowledging the old hand-out later is answered with a revoke (status-ingestor.ts).
// A phone that is offline cannot be told: the SMS then counts as taken, and is not replaced.
import { inTransaction, type Executor } from '../storage/database.ts';
import type { TaskService } from '../modules/delivery/task-service.ts';
import type { SmppService } from '../modules/smpp/service.ts';
import type { SmppSubmission } from '../modules/smpp/types.ts';
import type { DevicePresence } from '../modules/devices/presence.ts';
import type { SmsRecord } from '../modules/messages/types.ts';

export interface ReplaceSmsParts {
  tasks: TaskService;
  smpp: SmppService;
  presence: DevicePresence;
}

export interface SmsReplacementRequest {
  /** The new text, read from the replacement in the coding the SMS was submitted with. */
  text: (submission: SmppSubmission) => string;
  /** null: at once; undefined: as it was. */
  sendAt?: Date | null | undefined;
  validUntil?: Date | undefined;
  /** undefined: as it was. */
  registeredDelivery?: number | undefined;
  /** The ESME's source_addr, when it named one: it must be the one the SMS was submitted with. */
  sourceAddr?: string | undefined;
}

/**
 * unknown: no SMS of the account submitted over SMPP has this id; source_mismatch: it was
 * submitted from another source_addr; taken: a phone acknowledged it, it has ended, or the phone
 * holding its task is offline.
 */
export type ReplaceOutcome = { outcome: 'replaced'; sms: SmsRecord } | { outcome: 'unknown' | 'source_mismatch' | 'taken' };

/** `executor`: the database, or a transaction this joins. */
export async function replaceSubmittedSms(
  { tasks, smpp, presence }: ReplaceSmsParts,
  executor: Executor,
  accountId: string,
  smsId: string,
  request: SmsReplacementRequest,
): Promise<ReplaceOutcome> {
  const submission = await smpp.submissionOf(accountId, smsId);
  if (!submission) return { outcome: 'unknown' };
  if (request.sourceAddr && request.sourceAddr !== submission.sourceAddr) return { outcome: 'source_mismatch' };
  // Read before the transaction: a text that cannot be read refuses the request with nothing locked.
  const message = request.text(submission);
  return inTransaction(executor, async (trx) => {
    const result = await tasks.replacePending(trx, accountId, smsId, { message, sendAt: request.sendAt, expiresAt: request.validUntil }, (deviceId) =>
      presence.isOnline(deviceId),
    );
    if (result.outcome !== 'replaced') return { outcome: result.outcome };
    if (request.registeredDelivery !== undefined) await smpp.changeRegisteredDelivery(trx, smsId, request.registeredDelivery);
    return { outcome: 'replaced', sms: result.sms };
  });
}
