// What the messages module announces to the rest of the gateway (src/events/domain-events.ts).
import type { SmsRecord } from './types.ts';

export interface MessagesEvents {
  /** A stored SMS was committed; it may or may not have a device yet. */
  'sms.queued': SmsRecord;
  /** A no_store SMS, held only in memory, must be handed to its device now. */
  'sms.transient': SmsRecord;
}
