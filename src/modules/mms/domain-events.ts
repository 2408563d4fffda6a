// What the MMS module announces to the rest of the gateway (src/events/domain-events.ts).
import type { IncomingMms, IncomingMmsRow } from './types.ts';

export interface MmsEvents {
  /**
   * A received MMS was stored (not a repeat), its parts maybe still to come; written in its
   * transaction. Its text goes where a received SMS's goes (opt-out keywords, inbound rules, the inbox).
   */
  'incoming_mms.stored': IncomingMmsRow;
  /** A received MMS ended: every part uploaded, or the rest refused or given up on; written in its transaction. */
  'mms.received': IncomingMms;
}
