// An SMS status change as the rest of the gateway hears it (the "sms.status_changed" event).
// Whatever moves an SMS (a device report, expiry, cancel, a device that can no longer send)
// writes the change and announces it in the same transaction, so that what follows from a change
// (the webhook outbox rows, the device's failure count) commits or fails with it; once committed,
// it is heard again (wake the webhook sender, give the device its next task).
import type { Executor } from '../../storage/database.ts';
import type { SmsStatus } from '../messages/status.ts';
import type { SmsWayIn } from '../messages/types.ts';

/** What an event needs to know about its SMS. */
export interface SmsSnapshot {
  id: string;
  object_id: string;
  account_id: string;
  phone: string;
  /** null for a no_store SMS: its text must not leave the gateway again. */
  message: string | null;
  callback_id: string | null;
  device_id: string | null;
  device_object_id: string | null;
  /** phone and message are end-to-end ciphertext; absent on snapshots that do not say (read as false). */
  is_encrypted?: boolean;
  /** text, data or mms; absent: text. */
  kind?: string;
  /** The attempt the change belongs to (1 for the first; a failed send may be retried). */
  attempt?: number;
  /** How it came in: only an SMS that came in over SMPP may owe a receipt, only a Twilio one a StatusCallback. */
  way_in: SmsWayIn;
}

export interface SmsStatusChange {
  sms: SmsSnapshot;
  from: SmsStatus;
  /** Statuses passed through, in order; the last is the new status. */
  path: SmsStatus[];
  at: Date;
  reason: string | null;
  /** device: a phone's report; system: the gateway decided (expiry, failover); api: a client (cancel). */
  source: 'device' | 'system' | 'api';
  /** A no_store SMS: there is no row, and it runs outside any transaction. */
  transient: boolean;
}

export function newStatus(change: SmsStatusChange): SmsStatus {
  return change.path[change.path.length - 1]!;
}

/**
 * What a feature hears of status changes when only the SMS that came in its way concern it (an
 * SMPP receipt, a Twilio StatusCallback): the stored SMS of that way in, and nothing else. A batch
 * with none of them is answered `none` here, where the event is heard, without a call into the
 * feature's code: an SMS sent through the API runs none of SMPP's or Twilio's.
 */
export function changesCameIn<R>(
  wayIn: SmsWayIn,
  none: R,
  hear: (trx: Executor, changes: SmsStatusChange[]) => Promise<R>,
): (trx: Executor, changes: SmsStatusChange[]) => Promise<R> {
  return async function heardForOneWayIn(trx, changes) {
    const theirs = changes.filter((change) => change.sms.way_in === wayIn && !change.transient);
    return theirs.length === 0 ? none : hear(trx, theirs);
  };
}
