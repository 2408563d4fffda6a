// A provider's StatusCallback as a receipt. Twilio posts one per status change of a message; the
// gateway keeps those that say what became of the SMS and skips the steps on the way (queued,
// accepted, sending, scheduled). Pure: the lead's endpoint checks the signature
// (signature.ts) and hands the parameters here.
import type { ReceiptOutcome, UpstreamReceipt } from '../link.ts';

const OUTCOMES: Readonly<Record<string, ReceiptOutcome>> = {
  sent: 'sent',
  delivered: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed_delivery',
  // Cancelled at the provider (only a scheduled message can be): it will never go out, and
  // without a receipt the SMS would wait as sent for ever.
  canceled: 'failed_delivery',
};

/** The receipt the callback carries, or undefined for a step on the way or a request that is no callback. */
export function readStatusCallback(params: Record<string, string>, now = new Date()): UpstreamReceipt | undefined {
  const providerId = params.MessageSid ?? params.SmsSid;
  // SmsStatus is the older name Twilio still sends beside MessageStatus.
  const status = (params.MessageStatus ?? params.SmsStatus)?.toLowerCase();
  if (!providerId || !status) return undefined;
  const outcome = OUTCOMES[status];
  if (!outcome) return undefined;
  const errorCode = params.ErrorCode?.trim();
  return { providerId, outcome, providerStatus: status, errorCode: errorCode ? errorCode : null, at: now };
}
