// A number opting out or in (a keyword, the API, an import) becomes contact.opted_out or
// contact.opted_in, written to the outbox in the transaction that changed the list.
import type { EventListeners } from '../../events/domain-events.ts';
import type { WebhookOutbox } from '../webhooks/ordering/outbox.ts';
import type { WebhookSender } from '../webhooks/outbound/sender.ts';
import type { OptOutEvents } from './domain-events.ts';
import { contactOptChanged } from './webhook-events.ts';

export function optOutWebhookListeners(outbox: WebhookOutbox, sender: WebhookSender): EventListeners<OptOutEvents> {
  return {
    'suppressions.changed': {
      inTransaction: async (trx, changes) => {
        await outbox.record(trx, changes.map((change) => ({ envelope: contactOptChanged(change) })));
      },
      // The sender is woken once the rows it should find are committed.
      committed: () => sender.wake(),
    },
  };
}
