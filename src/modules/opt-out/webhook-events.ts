// The webhook bodies of the suppression list's changes (contact.opted_out, contact.opted_in).
import { envelope, type EventEnvelope } from '../webhooks/event-contract.ts';

/** A number put on (opted_out) or taken off (opted_in) the account's suppression list. */
export function contactOptChanged(change: { accountId: string; phone: string; optedOut: boolean; source: string; keyword: string | null; at: Date }): EventEnvelope {
  return envelope(
    change.optedOut ? 'contact.opted_out' : 'contact.opted_in',
    change.accountId,
    { contact: { phone: change.phone, source: change.source, keyword: change.keyword } },
    change.at,
  );
}
