// The error codes a radio reports with a failed send, as the gateway knows them (docs/delivery.md,
// "Retrying failed sends"). The gateway tries a send again, on another SIM or phone, only for a
// retryable code; a code it does not know is final there. So every code here must be one of its
// list, and a radio reports none rather than one it made up.

/** The SIM, its network or the radio at that moment: another SIM or phone may well succeed. */
export type RetryableSendError =
  | 'generic_failure'
  | 'no_service'
  | 'network_failure'
  | 'network_busy'
  | 'network_timeout'
  | 'smsc_unknown'
  | 'sim_unavailable'
  | 'radio_unavailable';

/**
 * The message or its recipient, which would fail anywhere, or a send that may already have gone
 * out (in part or whole), which a second try would send twice.
 */
export type PermanentSendError =
  | 'invalid_number'
  | 'blocked'
  | 'rejected'
  | 'not_subscribed'
  | 'invalid_message'
  | 'manufacturer_error'
  | 'unknown_error'
  | 'send_unconfirmed'
  | 'partly_sent';

export type SendErrorCode = RetryableSendError | PermanentSendError;
