// The webhook bodies of an ended USSD session (ussd.completed, ussd.failed).
import { envelope, type EventEnvelope } from '../webhooks/event-contract.ts';
import type { UssdView } from './presenter.ts';

/** A USSD session ended: ussd.completed with the network's answer, or ussd.failed with its error (a timeout too). */
export function ussdFinished(accountId: string, ussd: UssdView): EventEnvelope {
  return envelope(ussd.status === 'completed' ? 'ussd.completed' : 'ussd.failed', accountId, { ussd });
}
