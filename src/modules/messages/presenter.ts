// The Extended API's view of an SMS.
import type { Static } from '@sinclair/typebox';
import type { SmsHistoryRow, SmsRecord } from './repository.ts';
import type { BulkDryRun, RefusedRow as RefusedRowView, SmsDetail, SmsView } from './schema.ts';
import type { CheckedSms, RefusedRow } from './service.ts';
import { toExtendedStatus } from './status.ts';
import { countSegments } from '../../common/sms-segments.ts';

export function presentSms(sms: SmsRecord): Static<typeof SmsView> {
  const { segments, encoding } = segmentsOf(sms);
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
    // Present only on what is not a plain text SMS, so that a text SMS reads as it always has.
    ...(sms.kind && sms.kind !== 'text' ? { kind: sms.kind } : {}),
    ...(sms.is_encrypted ? { is_encrypted: true as const } : {}),
    ...(sms.kind === 'data' && sms.data !== null && sms.data_port !== null ? { data: sms.data, port: sms.data_port } : {}),
    ...(sms.category ? { category: sms.category } : {}),
  };
}

/**
 * Parts and encoding of a text the gateway can read. Ciphertext says neither (its length bounds
 * the text's bytes, not its characters or alphabet): null. A data SMS is one 8-bit part.
 */
function segmentsOf(sms: SmsRecord): { segments: number | null; encoding: 'gsm7' | 'ucs2' | null } {
  if (sms.is_encrypted) return { segments: null, encoding: null };
  if (sms.kind === 'data') return { segments: 1, encoding: null };
  return countSegments(sms.message);
}

export function presentSmsDetail(sms: SmsRecord, history: SmsHistoryRow[]): Static<typeof SmsDetail> {
  return {
    ...presentSms(sms),
    way_in: sms.way_in ?? 'api',
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
  const { phone, message, device_id, send_at, valid_until, priority, segments, encoding, category } = presentSms(checked.prepared.sms);
  // Bulk sends are plain text, whose parts and encoding are always known.
  return { index: checked.index, valid: true, phone, message, device_id, send_at, valid_until, priority, segments: segments!, encoding: encoding!, ...(category ? { category } : {}) };
}

/** A row a partial send left out: its index, the recipient as given, the code a single send would answer and its problems. */
export function presentRefused(row: RefusedRow, recipient: unknown): Static<typeof RefusedRowView> {
  return {
    index: row.index,
    recipient: typeof recipient === 'string' ? recipient : null,
    code: row.code,
    message: row.errors.map((error) => (error.field ? `${error.field}: ${error.message}` : error.message)).join('; '),
    errors: row.errors,
  };
}
