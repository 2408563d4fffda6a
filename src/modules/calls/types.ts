// A call and its recording as other modules (webhooks, events) see them.
import type { CallDirection } from './schema.ts';

export interface CallRow {
  id: string;
  account_id: string;
  device_id: string;
  device_call_id: string;
  direction: CallDirection;
  phone: string;
  sim_slot: number | null;
  started_at: Date;
  duration_seconds: number;
  created_at: Date;
}

export interface RecordingRow {
  call_id: string;
  storage_key: string;
  size_bytes: number;
  content_type: string;
  duration_seconds: number | null;
  sha256: string;
  created_at: Date;
}
