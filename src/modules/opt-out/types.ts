// Opt-out rows as other modules see them.
export interface SuppressionRow {
  id: string;
  account_id: string;
  /** E.164. */
  phone: string;
  /** How the number got on the list: a STOP keyword it sent, the API (or panel), a CSV import. */
  source: 'keyword' | 'api' | 'import';
  /** The keyword received, when source is keyword. */
  keyword: string | null;
  created_at: Date;
}

export interface OptOutSettings {
  /** Opt-out handling of received keywords; on unless the account turned it off. */
  enabled: boolean;
  /** The account's own stop words, besides the standard ones. */
  extra_keywords: string[];
  /** Answer to HELP; none is sent while null. */
  help_text: string | null;
  /** Confirmation sent after a stop keyword; none while null. */
  stop_reply: string | null;
  /** Confirmation sent after a start keyword; none while null. */
  start_reply: string | null;
}

/** A number put on or taken off an account's suppression list. */
export interface SuppressionChange {
  accountId: string;
  phone: string;
  optedOut: boolean;
  source: SuppressionRow['source'];
  keyword: string | null;
  at: Date;
}

/** A confirmation or help answer owed to a sender, through the phone (and SIM) that received its keyword. */
export interface OptOutReply {
  accountId: string;
  incomingId: string;
  /** null: it came through an upstream; the answer goes as any SMS of the account (its routes decide). */
  deviceId: string | null;
  simSlot: number | null;
  phone: string;
  text: string;
}

/**
 * The account's suppression list as its phones get it with their settings (docs/asyncapi.yaml,
 * DeviceSettings.opted_out): keyed hashes of the numbers, never the numbers.
 */
export interface OptedOutForDevices {
  /** HMAC-SHA-256 of the number in E.164 (UTF-8) under `key`, its first 8 bytes. */
  scheme: 'hmac-sha256/64';
  /** The HMAC key, 32 bytes, standard base64. */
  key: string;
  /** The hashes, 8 bytes each, sorted, concatenated, standard base64. */
  hashes: string;
  /** How many hashes `hashes` holds. */
  count: number;
  /** false: the list is longer than the phones are given; these are its newest numbers. */
  complete: boolean;
}
