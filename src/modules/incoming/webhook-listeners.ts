// A stored incoming SMS becomes sms.received, written to the outbox in the transaction that stores it.
import type { EventListeners } from '../../events/domain-events.ts';
import type { WebhookOutbox } from '../webhooks/ordering/outbox.ts';
import type { WebhookSender } from '../webhooks/outbound/sender.ts';
import type { IncomingEvents } from './domain-events.ts';
import { smsReceived } from './webhook-events.ts';

export function incomingWebhookListeners(outbox: WebhookOutbox, sender: WebhookSender): EventListeners<IncomingEvents> {
  return {
    'incoming.stored': {
      inTransaction: async (trx, row) => {
        await outbox.record(trx, [{ envelope: smsReceived(row.account_id, row) }]);
      },
      // The sender is woken once the rows it should find are committed.
      committed: () => sender.wake(),
    },
  };
}
