// What the receipts of an SMS sent in parts say of the whole SMS. An SMSC takes a long text as
// several submit_sm, one message id and one receipt each; the recipient reads the text only when
// every part arrived, so:
//
// - the SMS is delivered once every part's receipt says delivered;
// - the first part that fails (undelivered or failed_delivery) fails the SMS at once, with that
//   part's own outcome: the text can no longer arrive whole, and waiting for the other parts'
//   receipts (which may never come) would only keep the client from knowing. The receipts of the
//   parts after it are recorded and change nothing (a final status does not move);
// - until then it stays sent.
//
// A single-part SMS (and a Twilio-compatible provider's one id) is the same rule with one part.
import type { Executor } from '../../storage/database.ts';
import type { ReceiptOutcome, UpstreamReceipt } from './links/link.ts';
import { recordPartOutcome } from './repository.ts';

/** What the whole SMS becomes after `latest`, given every part's final receipt so far (null: none yet); undefined: nothing yet. */
export function outcomeOfParts(latest: ReceiptOutcome, parts: readonly (string | null)[]): ReceiptOutcome | undefined {
  if (latest === 'sent') return 'sent';
  if (latest !== 'delivered') return latest;
  return parts.length > 0 && parts.every((part) => part === 'delivered') ? 'delivered' : undefined;
}

/**
 * Records the receipt against its part and answers what the whole SMS becomes (undefined:
 * nothing yet). Run under the SMS's lock.
 */
export async function outcomeAfterReceipt(db: Executor, upstreamId: string, receipt: UpstreamReceipt): Promise<ReceiptOutcome | undefined> {
  // An intermediate receipt (ENROUTE, ACCEPTD) says no more than sent, of any part.
  if (receipt.outcome === 'sent') return 'sent';
  const { kept, parts } = await recordPartOutcome(db, upstreamId, receipt.providerId, receipt.outcome);
  // The part's first final receipt is what it says: a later, different one for the same part
  // (a provider's correction or a replay) changes nothing.
  return outcomeOfParts((kept ?? receipt.outcome) as ReceiptOutcome, parts);
}
