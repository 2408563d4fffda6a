// The payloads of the device protocol, and the checks the agent makes on what the gateway sends.
// A payload that fails a check is dropped and counted by the caller: a gateway of a later
// version, or a broken one, must not crash a phone.
import { parseMmsFields, type MmsTaskFields } from './mms.ts';

export type { MmsPart, MmsTaskFields } from './mms.ts';

/** A send task. Its sms_id is the idempotency key. */
export interface SendTask {
  sms_id: string;
  phone: string;
  message: string;
  /** -2: the phone's default SIM; 0-2: the slot. */
  sim: number;
  created_at: string;
  /** Not to be started after this time; null: no limit. */
  valid_until: string | null;
  /** phone and message are end-to-end ciphertext (end-to-end.ts): decrypted with the phone's passphrase before sending. */
  is_encrypted?: boolean;
  /** A data SMS: its binary payload (base64, at most 133 bytes) for an application port; message is empty. */
  data?: string;
  port?: number;
  /** "mms": an MMS, with subject, recipients and parts (./mms.ts); absent: a text SMS. */
  kind?: 'mms';
  subject?: MmsTaskFields['subject'];
  recipients?: MmsTaskFields['recipients'];
  parts?: MmsTaskFields['parts'];
  /**
   * The attempt, when above 1: the gateway retries a send this phone (or another) failed. A task
   * with a higher attempt than the one this phone failed is a new task, sent once.
   */
  attempt?: number;
}

export interface TaskRevoked {
  sms_id: string;
  reason: string;
}

/** The settings the gateway pushes (retained). The agent reads a few; the rest are information. */
export type DeviceSettings = Record<string, unknown> & {
  can_send_sms?: boolean;
  forward_incoming_sms?: boolean;
  record_calls?: boolean;
};

export type ReportStatus = 'processing' | 'sent' | 'delivered' | 'undelivered' | 'failed_send' | 'failed_delivery';

export interface StatusReport {
  sms_id: string;
  status: ReportStatus;
  error?: string;
  /** Machine-readable reason of a failed send: the gateway retries some (docs/delivery.md). */
  error_code?: string;
  sim_slot?: number;
}

/** How far along a status is: a report never moves an SMS back. */
export const STATUS_RANK: Record<ReportStatus, number> = { processing: 1, sent: 2, failed_send: 2, delivered: 3, undelivered: 3, failed_delivery: 3 };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The longest error text the gateway takes in a status report. */
export const MAX_ERROR_LENGTH = 500;

export function parseTask(payload: Buffer): SendTask | string {
  const value = parseObject(payload);
  if (typeof value === 'string') return value;
  const { sms_id, phone, message, sim, created_at, valid_until, is_encrypted, data, port, attempt } = value;
  if (typeof sms_id !== 'string' || !UUID.test(sms_id)) return 'sms_id is not a UUID';
  if (is_encrypted !== undefined && typeof is_encrypted !== 'boolean') return 'is_encrypted is not a boolean';
  // Ciphertext is checked when it is decrypted: a phone without the passphrase still reports the task.
  if (typeof phone !== 'string' || (is_encrypted ? phone.length === 0 : !/^\+?[0-9]{1,20}$/.test(phone))) return 'phone is not a phone number';
  if (typeof message !== 'string') return 'message is not a string';
  if (typeof sim !== 'number' || !Number.isInteger(sim) || sim < -2 || sim > 7) return 'sim is not a slot';
  if (typeof created_at !== 'string') return 'created_at is missing';
  if (valid_until !== null && (typeof valid_until !== 'string' || Number.isNaN(Date.parse(valid_until)))) return 'valid_until is not a time';
  if (data !== undefined && (typeof data !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(data))) return 'data is not base64';
  if (data !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)) return 'port is not a port';
  if (attempt !== undefined && (typeof attempt !== 'number' || !Number.isInteger(attempt) || attempt < 1 || attempt > 100)) return 'attempt is not a whole number from 1';
  const mms = parseMmsFields(value);
  if (typeof mms === 'string') return mms;
  return {
    sms_id: sms_id.toLowerCase(),
    phone,
    message,
    sim,
    created_at,
    valid_until,
    ...(is_encrypted ? { is_encrypted: true } : {}),
    ...(data !== undefined ? { data, port: port as number } : {}),
    ...(typeof attempt === 'number' ? { attempt } : {}),
    ...mms,
  };
}

export function parseRevoke(payload: Buffer): TaskRevoked | string {
  const value = parseObject(payload);
  if (typeof value === 'string') return value;
  if (typeof value.sms_id !== 'string' || !UUID.test(value.sms_id)) return 'sms_id is not a UUID';
  return { sms_id: value.sms_id.toLowerCase(), reason: typeof value.reason === 'string' ? value.reason : 'unknown' };
}

export function parseSettings(payload: Buffer): DeviceSettings | string {
  return parseObject(payload);
}

function parseObject(payload: Buffer): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return 'not JSON';
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : 'not a JSON object';
}
