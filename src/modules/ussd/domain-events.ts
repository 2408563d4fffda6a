// What the USSD module announces to the rest of the gateway (src/events/domain-events.ts).
import type { UssdSessionRow } from './types.ts';

export interface UssdEvents {
  /** A USSD session ended, completed or failed (a timeout too); written in the transaction that ended it. */
  'ussd.finished': UssdSessionRow;
}
