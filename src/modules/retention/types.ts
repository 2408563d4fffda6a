// An account's retention setting as other parts see it.
export interface RetentionSettings {
  account_id: string;
  /** Message text older than this many days is redacted; null: kept for ever. */
  keep_text_days: number | null;
  /** After redaction, numbers are kept only as HMAC-SHA256 hashes under the account's salt. */
  hash_recipients: boolean;
  updated_at: Date | null;
}
