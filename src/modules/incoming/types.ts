// A received SMS as other modules see it: its row, as the incoming module stores it.
export interface IncomingSmsRow {
  id: string;
  account_id: string;
  /** null: it came through an upstream provider (upstream_id), not a phone. */
  device_id: string | null;
  device_message_id: string;
  phone: string;
  message: string;
  sim_slot: number | null;
  received_at: Date;
  created_at: Date;
  /** phone and message are end-to-end ciphertext only the client and the phone can read. */
  is_encrypted: boolean;
  /** The upstream provider it came through; null when a phone received it. */
  upstream_id?: string | null;
}
