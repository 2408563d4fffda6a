// The webhook body of an SMS status change (sms.status_changed). A no_store SMS's text is never sent.
import { envelope, type EventEnvelope } from '../webhooks/event-contract.ts';
import type { SmsStatus } from '../messages/status.ts';
import { toExtendedStatus } from '../messages/status.ts';
import { LEGACY_STATUS, legacyLabel } from '../messages/legacy-status-codes.ts';
import type { SmsSnapshot } from './status-change.ts';

export function smsStatusChanged(sms: SmsSnapshot, from: SmsStatus, to: SmsStatus, at: Date, reason: string | null): EventEnvelope {
  return envelope(
    'sms.status_changed',
    sms.account_id,
    {
      sms: {
        id: sms.id,
        object_id: sms.object_id,
        phone: sms.phone,
        ...(sms.message === null ? { no_store: true } : { message: sms.message }),
        device_id: sms.device_id,
        device_object_id: sms.device_object_id,
        callback_id: sms.callback_id,
        // Only on what is not a plain text SMS: phone and message are then ciphertext, or the SMS carries data.
        ...(sms.is_encrypted ? { is_encrypted: true } : {}),
        ...(sms.kind && sms.kind !== 'text' ? { kind: sms.kind } : {}),
        status: toExtendedStatus(to),
        internal_status: to,
        legacy_status: LEGACY_STATUS[to],
        legacy_status_label: legacyLabel(to),
        previous_status: from,
        reason,
        // Which attempt the change belongs to: a send that failed with a retryable error is
        // tried again (on another SIM or phone) before its status is final.
        attempt: sms.attempt ?? 1,
      },
    },
    at,
  );
}
