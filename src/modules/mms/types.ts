// MMS rows as other modules see them (webhooks, the event catalog).

/** Bytes an account uploaded, or a phone received in an MMS: the store keeps them, this row says what they are. */
export interface MediaRow {
  id: string;
  account_id: string;
  origin: 'upload' | 'incoming';
  storage_key: string;
  content_type: string;
  /** INT8: a string from pg, a number from PGlite; read with Number(). */
  size_bytes: number | string;
  sha256: string;
  created_at: Date;
}

/** One part of an outgoing MMS, in order. */
export interface OutgoingPartRow {
  sms_id: string;
  position: number;
  media_id: string;
  content_type: string;
  size_bytes: number | string;
}

/** What an outgoing MMS has beyond its sms row. */
export interface OutgoingMmsRow {
  sms_id: string;
  subject: string | null;
  /** Every recipient, the sms row's phone first. */
  recipients: string[];
}

/** An MMS a phone reported receiving. */
export interface IncomingMmsRow {
  id: string;
  account_id: string;
  device_id: string;
  device_mms_id: string;
  phone: string;
  recipients: string[];
  subject: string | null;
  message: string | null;
  sim_slot: number | null;
  received_at: Date;
  /**
   * When it ended: every part uploaded, or given up on (missing_reason), and mms.received
   * announced; null while parts are still awaited.
   */
  completed_at: Date | null;
  created_at: Date;
}

/** A part of a received MMS: declared by the phone's report, media_id set once it uploaded the bytes. */
export interface IncomingPartRow {
  mms_id: string;
  part_id: string;
  position: number;
  content_type: string;
  size_bytes: number | string;
  media_id: string | null;
  /** Why the part will not come; null while it may, and once uploaded. */
  missing_reason: MissingReason | null;
}

/**
 * Why a part of a received MMS is missing: its upload passed MMS_MAX_MESSAGE_BYTES (too_large),
 * its type is none MMS media may be or its bytes were not the type reported (type_refused), or
 * it was not uploaded within the wait (not_uploaded).
 */
export type MissingReason = 'too_large' | 'type_refused' | 'not_uploaded';

/** Where a received MMS stands: parts still awaited, every part in, or ended without some. */
export type IncomingMmsStatus = 'receiving' | 'complete' | 'incomplete';

/** A received MMS with its parts, in order; the payload of "mms.received". */
export interface IncomingMms {
  mms: IncomingMmsRow;
  parts: IncomingPartRow[];
  /** The media of the uploaded parts, by id (for their checksums). */
  media: Map<string, MediaRow>;
}
