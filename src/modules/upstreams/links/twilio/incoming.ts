// Twilio's inbound SMS webhook (the number's "A message comes in" URL) as an SMS to the account.
// Pure: the lead's endpoint checks the signature (signature.ts) and hands the parameters here.
import type { UpstreamIncoming } from '../link.ts';

/** The SMS the request carries, or undefined when it is not one (no From, To or Body). */
export function readIncoming(params: Record<string, string>, now = new Date()): UpstreamIncoming | undefined {
  const from = params.From?.trim();
  const to = params.To?.trim();
  // An MMS with media only has an empty Body: still an incoming message, with no text.
  const text = params.Body;
  if (!from || !to || text === undefined) return undefined;
  return { from, to, text, at: now };
}
