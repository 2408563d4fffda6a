// What the opt-out module announces to the rest of the gateway (src/events/domain-events.ts).
import type { OptOutReply, SuppressionChange } from './types.ts';

export interface OptOutEvents {
  /** Numbers were put on or taken off an account's suppression list (a keyword, the API, an import); written in its transaction. */
  'suppressions.changed': SuppressionChange[];
  /** A keyword (STOP, START, HELP) is to be answered through the phone that received it; written in its transaction. */
  'opt_out.reply_due': OptOutReply;
}
