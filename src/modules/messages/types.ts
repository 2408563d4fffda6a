// An SMS as other modules see it: its row, as the messages module stores it.
import type { SmsCategory } from './category.ts';
import type { SmsStatus } from './status.ts';

export interface SmsRecord {
  id: string;
  object_id: string;
  account_id: string;
  device_id: string | null;
  device_named: boolean;
  phone: string;
  message: string;
  status: SmsStatus;
  sim_slot: number | null;
  callback_id: string | null;
  /** Not handed to a device before this time. */
  send_at: Date | null;
  /** Not taken by a phone by then: ends as failed_send, reason "expired". */
  expires_at: Date | null;
  /** -100..100, higher first. */
  priority: number;
  /** When its current device was handed the task; null while it waits in a queue. */
  dispatched_at: Date | null;
  /** Why it ended as it did (expired, cancelled, device_deleted, or the phone's error). */
  reason: string | null;
  created_at: Date;
  updated_at: Date;
  /** text, data (a binary payload for an application port) or mms. */
  kind: SmsKind;
  /** phone and message are ciphertext only the client and the phone can read (docs/encryption.md). */
  is_encrypted: boolean;
  /** A data SMS's payload, base64 (at most 140 bytes once decoded); null for any other kind. */
  data: string | null;
  /** A data SMS's application port, 1-65535; null for any other kind. */
  data_port: number | null;
  /** The attempt it is on, 1 for the first (a failed send may be retried: docs/delivery.md). */
  attempt?: number;
  /** A retry on its named device must use this SIM slot (one not tried yet). */
  retry_sim_slot?: number | null;
  /**
   * Created past the suppression list (a key with sms:send_transactional, an opt-out
   * confirmation): the check when a phone is about to be handed it lets it through too. Absent: false.
   */
  transactional?: boolean;
  /**
   * An encrypted SMS's passphrase, by fingerprint, as its client named it: only a device holding
   * that passphrase is handed it. Absent or null: any device holding a passphrase.
   */
  passphrase_fingerprint?: string | null;
  /**
   * How it came in (see SmsWayIn): SMPP owes receipts and Twilio StatusCallbacks only for their
   * own SMS, and tell them by this alone. Absent: api.
   */
  way_in?: SmsWayIn;
  /** What its client said it is (otp, transactional, marketing), for the routes. Absent or null: not said. */
  category?: SmsCategory | null;
  /** The device group a route keeps it for: only that group's phones may take it. Absent or null: any phone. */
  device_group?: string | null;
  /** When the routes are to look at it at the latest, while they keep it from the phones (null: no such look). */
  route_check_at?: Date | null;
}

/**
 * How an SMS came in. api: the Extended API (MCP and the CLI speak it too); panel: the Extended
 * API with a logged-in user's session, the control panel; legacy: the legacy API; smpp: an ESME's
 * submit_sm; twilio: the Twilio-compatible API; mail: an email to SMS; rule, opt-out, twiml:
 * written by the gateway in answer to a received SMS (an inbound rule's reply or forward, an
 * opt-out keyword's confirmation, a receiver's TwiML <Message>). The SMS table's check
 * (migrations) holds the same list.
 */
export const WAYS_IN = ['api', 'panel', 'legacy', 'smpp', 'twilio', 'mail', 'rule', 'opt-out', 'twiml'] as const;
export type SmsWayIn = (typeof WAYS_IN)[number];

export type SmsKind = 'text' | 'data' | 'mms' | 'canary';

/** An SMS as the read routes show it: with its device's object id and the SIM slot a phone reported sending from. */
export type SmsWithDevice = SmsRecord & { device_object_id: string | null; sent_sim_slot: number | null };
