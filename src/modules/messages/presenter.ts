// The Extended API's view of an SMS.
import type { Static } from '@sinclair/typebox';
import type { SmsHistoryRow, SmsRecord } from './repository.ts';
import type { BulkDryRun, SmsDetail, SmsView } from './schema.ts';
import type { CheckedSms } from './service.ts';
import { toExtendedStatus } from './status.ts';
import { countSegments } from '../../common/sms-segments.ts';

export function presentSms(sms: SmsRecord): Static<typeof SmsView> {
  const { segments, encoding } = countSegments(sms.message);
  return {
    id: sms.id,
    device_id: sms.device_id,
    phone: sms.phone,
    message: sms.message,
    status: toExtendedStatus(sms.status),
    reason: sms.reason,
    sent_at: sms.created_at.toISOString(),
    updated_at: sms.updated_at.toISOString(),
    send_at: sms.send_at?.toISOString() ?? null,
    valid_until: sms.expires_at?.toISOString() ?? null,
    priority: sms.priority,
    sim_slot: sms.sim_slot,
    callback_id: sms.callback_id,
    segments,
    encoding,
    ...(sms.kind && sms.kind !== 'text' ? { kind: sms.kind } : {}),
  };
}

export function presentSmsDetail(sms: SmsRecord, history: SmsHistoryRow[]): Static<typeof SmsDetail> {
  return {
    ...presentSms(sms),
    history: history.map((entry) => ({
      status: toExtendedStatus(entry.status),
      internal_status: entry.status,
      source: entry.source,
      reason: entry.reason,
      at: entry.created_at.toISOString(),
    })),
  };
}

/** One message of a bulk dry run: the SMS as it would be sent, or what is wrong with it. */
export function presentChecked(checked: CheckedSms): Static<typeof BulkDryRun>['data'][number] {
  if (checked.errors) return { index: checked.index, valid: false, errors: checked.errors };
  const { phone, message, device_id, send_at, valid_until, priority, segments, encoding } = presentSms(checked.prepared.sms);
  return { index: checked.index, valid: true, phone, message, device_id, send_at, valid_until, priority, segments, encoding };
}
