// A conversation as other parts see it: one row per (account, remote number).
export interface ConversationRow {
  id: string;
  account_id: string;
  /** The remote number: E.164 when it could be read as one, else as the phone reported it. */
  phone: string;
  last_activity_at: Date;
  last_sms_id: string | null;
  last_sms_at: Date | null;
  last_incoming_id: string | null;
  last_incoming_at: Date | null;
  unread_count: number;
  read_at: Date | null;
  created_at: Date;
}
