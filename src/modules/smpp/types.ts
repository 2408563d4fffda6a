// What other parts of the gateway may read of SMPP's rows: a credential (never its password
// hash outside this module's service) and a deliver_sm waiting for its ESME.

/** What the ESME means by data_coding 0, the "SMSC default alphabet": SMSCs differ. */
export const DEFAULT_ALPHABETS = ['gsm7', 'ascii', 'latin1'] as const;
export type DefaultAlphabet = (typeof DEFAULT_ALPHABETS)[number];

export interface SmppCredential {
  id: string;
  account_id: string;
  system_id: string;
  name: string;
  /** Devices the ESME's SMS may go out through; empty: any of the account's. */
  device_ids: string[];
  /** submit_sm (and submit_multi destinations) accepted per second; past it, ESME_RTHROTTLED. */
  throughput_per_second: number;
  /** PDUs either side may have unacknowledged at once. */
  window_size: number;
  /** How text with data_coding 0 is read from the ESME and written to it. */
  default_data_coding: DefaultAlphabet;
  created_at: Date;
  revoked_at: Date | null;
}

/** receipt: a delivery receipt of an SMS submitted over SMPP; incoming: an SMS a phone received. */
export type PendingDeliverKind = 'receipt' | 'incoming';

/** A deliver_sm stored until its ESME answers deliver_sm_resp. */
export interface PendingDeliver {
  id: string;
  credential_id: string;
  kind: PendingDeliverKind;
  source_addr: string;
  destination_addr: string;
  short_message: string;
  receipted_message_id: string | null;
  message_state: number | null;
  created_at: Date;
  attempts: number;
}

/** What a credential's ESME asked for when it submitted an SMS (registered_delivery, its source_addr). */
export interface SmppSubmission {
  smsId: string;
  credentialId: string;
  sourceAddr: string;
  registeredDelivery: number;
  /** The data_coding it was submitted with: a replace_sm's text is read in it. */
  dataCoding: number;
  submittedAt: Date;
}
