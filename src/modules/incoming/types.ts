// A received SMS as other modules see it: its row, as the incoming module stores it.
export interface IncomingSmsRow {
  id: string;
  account_id: string;
  device_id: string;
  device_message_id: string;
  phone: string;
  message: string;
  sim_slot: number | null;
  received_at: Date;
  created_at: Date;
  /** phone and message are end-to-end ciphertext only the client and the phone can read. */
  is_encrypted: boolean;
}
