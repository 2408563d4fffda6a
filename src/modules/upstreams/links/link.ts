// An upstream link: the gateway's connection to a provider that sends SMS for it when the
// account's phones cannot (an SMSC over SMPP, a service speaking Twilio's Messages API). Every
// kind of link offers the same few things, so that routing never asks which kind it holds:
// submit one SMS, say what became of it later (receipts), hand over SMS sent to the account
// through the provider (MO), and say whether it can take work now.

/** Whether a link can take work now, as GET /upstreams shows it. */
export type LinkState =
  /** Connecting or binding (SMPP), or never tried yet. */
  | 'connecting'
  /** Ready for submissions. */
  | 'ready'
  /** The provider asked to slow down (SMPP ESME_RTHROTTLED, HTTP 429): submissions wait. */
  | 'throttled'
  /** Lost or refused; reconnecting with backoff. `detail` says why. */
  | 'down'
  /** Closed on purpose (the upstream was disabled or deleted, the gateway stops). */
  | 'closed';

export interface LinkStatus {
  state: LinkState;
  /** In words an owner reads: why it is down, what the provider answered. Never a secret. */
  detail: string | null;
  /** When the state last changed. */
  since: Date;
}

/** One SMS to submit. The text is plain (the link encodes it: GSM-7 or UCS-2, parts with UDH). */
export interface UpstreamSubmission {
  /** The gateway's SMS id: a link may pass it on as its reference. */
  smsId: string;
  /** E.164, with the leading +. */
  phone: string;
  text: string;
  /** Who it is from, when the upstream's settings or the SMS say so; else the link's default. */
  from?: string;
  /** Ask for delivery receipts (the SMS's own delivery report setting). */
  wantsReceipt: boolean;
  /** Past this the provider should stop trying (SMPP validity_period); none: the provider's default. */
  validUntil?: Date;
}

export type SubmitOutcome =
  /** Accepted: the provider's id(s) for the SMS, one per part for SMPP, and the parts it took. */
  | { accepted: true; providerIds: string[]; segments: number }
  /**
   * Refused. `retry`: "later" when the same link may take it after a wait (throttled, a
   * temporary error, the link went down before it went out), "never" when this link will not
   * take it at all (an invalid number, refused credentials, a permanent error): routing moves to
   * the next rule then. "unknown" when it went out and no answer came (an SMPP submit_sm whose
   * response never came, or whose connection ended first): the provider may have it, and neither
   * another try nor the next rule may send it again; routing leaves it to the watchdog. `code`:
   * the provider's (e.g. "0x00000058", "21211"); `detail` in words.
   */
  | { accepted: false; retry: 'later' | 'never' | 'unknown'; code: string; detail: string; retryAfterMs?: number };

/** What a receipt says became of a submitted SMS, in the gateway's words. */
export type ReceiptOutcome = 'delivered' | 'undelivered' | 'failed_delivery' | 'sent';

export interface UpstreamReceipt {
  /** The provider's id given at submit (for SMPP, any part's). */
  providerId: string;
  outcome: ReceiptOutcome;
  /** The provider's own word (SMPP stat, e.g. "UNDELIV"; Twilio's status) and error code, if any. */
  providerStatus: string;
  errorCode: string | null;
  at: Date;
}

/** An SMS sent to the account through the provider (SMPP deliver_sm without a receipt, Twilio's inbound webhook). */
export interface UpstreamIncoming {
  from: string;
  /** The number it was sent to (the account's number at the provider). */
  to: string;
  text: string;
  at: Date;
}

export interface LinkEvents {
  receipt(receipt: UpstreamReceipt): void | Promise<void>;
  incoming(message: UpstreamIncoming): void | Promise<void>;
  stateChanged(status: LinkStatus): void;
}

export interface UpstreamLink {
  readonly status: LinkStatus;
  /**
   * Submits one SMS; resolves with the provider's answer (never rejects: a failure is a refusal
   * with retry "later"). Waits for the link's throughput and window; a link that is down answers
   * at once with retry "later".
   */
  submit(submission: UpstreamSubmission): Promise<SubmitOutcome>;
  /** Ends the link: unbinds (SMPP), stops reconnecting, answers later submissions "later". */
  close(): Promise<void>;
}
