// The shapes the SMS pages read from the Extended API (src/modules/messages/schema.ts,
// src/modules/devices/schema.ts, src/modules/incoming/schema.ts), limited to the fields shown.

export type SmsStatus = 'pending' | 'sent' | 'delivered' | 'undelivered' | 'failed_send' | 'failed_delivery';

/** The statuses GET /sms?status= accepts, in the order an SMS goes through them. */
export const SMS_STATUSES: SmsStatus[] = ['pending', 'sent', 'delivered', 'undelivered', 'failed_send', 'failed_delivery'];

export interface Sms {
  id: string;
  device_id: string | null;
  phone: string;
  message: string;
  status: SmsStatus;
  reason: string | null;
  sent_at: string;
  updated_at: string;
  send_at: string | null;
  valid_until: string | null;
  priority: number;
  segments: number;
  encoding: 'gsm7' | 'ucs2';
}

export interface SmsHistoryEntry {
  status: SmsStatus;
  internal_status: string;
  source: 'api' | 'device' | 'system';
  reason: string | null;
  at: string;
}

export interface SmsDetail extends Sms {
  history: SmsHistoryEntry[];
}

export interface DeviceSummary {
  id: string;
  name_custom: string;
  is_online: boolean;
  can_send_sms: boolean;
  selected_sim: number;
  sim_cards: { index: number; name_operator: string }[];
}

export interface IncomingSms {
  id: string;
  device_id: string;
  phone: string;
  message: string;
  sim_slot: number | null;
  received_at: string;
  created_at: string;
}

/** One row of POST /sms/bulk?dry_run=true. */
export type BulkCheck =
  | { index: number; valid: true; phone: string; message: string; device_id: string | null; send_at: string | null; valid_until: string | null; priority: number; segments: number; encoding: 'gsm7' | 'ucs2' }
  | { index: number; valid: false; errors: { field: string; message: string }[] };
