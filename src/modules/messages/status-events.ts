// A status change as other features hear about it (the webhook outbox writes its deliveries
// from these, inside the transaction of the change).
import type { Executor } from '../../storage/database.ts';
import type { SmsStatus } from './status.ts';

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
}

export interface SmsStatusEvent {
  sms: SmsSnapshot;
  from: SmsStatus;
  to: SmsStatus;
  at: Date;
  reason: string | null;
}

/** Writes what follows from status changes, on the executor of the change (its transaction). */
export type SmsStatusEventWriter = (db: Executor, events: SmsStatusEvent[]) => Promise<void>;
