// The webhook body of a received MMS (mms.received).
import { envelope, type EventEnvelope } from '../webhooks/event-contract.ts';

/** A received MMS is complete: it with its parts and where to download each, never the bytes. */
export function mmsReceived(accountId: string, mms: Record<string, unknown>): EventEnvelope {
  return envelope('mms.received', accountId, { mms });
}
