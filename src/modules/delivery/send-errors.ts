// What a phone's error_code says about a failed send: whether trying again, on another SIM or
// another phone, may succeed (docs/delivery.md, "Retrying failed sends").
//
// Retryable codes describe the SIM or its network at that moment; permanent ones describe the
// message or its recipient, which another SIM would fail the same way. A report without a code
// (a phone older than error codes) or with a code this gateway does not know is not retried: the
// gateway cannot tell whether trying again is safe, and a send attempted twice costs the user.
//
// The device agent maps a modem's +CMS ERROR and Termux's failures to these codes
// (agent/src/radio/send-error-codes.ts); docs/delivery.md tables both.
export const RETRYABLE_ERROR_CODES = [
  'generic_failure',
  'no_service',
  'radio_off',
  'null_pdu',
  'no_credit',
  'network_failure',
  'network_busy',
  'network_timeout',
  'smsc_unknown',
  'sim_unavailable',
  'radio_unavailable',
] as const;
export const PERMANENT_ERROR_CODES = [
  'invalid_number',
  'blocked',
  'message_too_long',
  'rejected',
  'not_subscribed',
  'invalid_message',
  'manufacturer_error',
  'unknown_error',
  'send_unconfirmed',
  'partly_sent',
] as const;

/** What a well-formed error_code looks like (an unknown one is accepted and treated as permanent). */
export const ERROR_CODE_PATTERN = '^[a-z][a-z0-9_]{0,63}$';

const RETRYABLE: ReadonlySet<string> = new Set(RETRYABLE_ERROR_CODES);

export function isRetryable(errorCode: string | null | undefined): boolean {
  return errorCode !== null && errorCode !== undefined && RETRYABLE.has(errorCode);
}

/** How long a retry waits after attempt `failedAttempt` failed: `baseMs`, doubling per attempt, at most an hour. */
export function retryDelayMs(baseMs: number, failedAttempt: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, failedAttempt - 1), 3_600_000);
}
