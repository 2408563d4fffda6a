// What the incoming SMS module announces to the rest of the gateway (src/events/domain-events.ts).
import type { IncomingSmsRow } from './types.ts';

export interface IncomingEvents {
  /** An incoming SMS was stored (not a repeat of one already stored); written in its transaction. */
  'incoming.stored': IncomingSmsRow;
}
