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
  deviceId: string;
  simSlot: number | null;
  phone: string;
  text: string;
}
