// A stored incoming SMS becomes sms.received, written to the outbox in the transaction that stores it.
import type { DomainEvents } from '../../events/domain-events.ts';
import type { WebhookOutbox } from '../webhooks/ordering/outbox.ts';
import type { WebhookSender } from '../webhooks/outbound/sender.ts';
import type { IncomingEvents } from './domain-events.ts';
import { smsReceived } from './webhook-events.ts';

export function wireIncomingWebhooks(events: DomainEvents<IncomingEvents>, outbox: WebhookOutbox, sender: WebhookSender): void {
  events.listen('incoming.stored', {
    inTransaction: async (trx, row) => {
      await outbox.record(trx, [{ envelope: smsReceived(row.account_id, row) }]);
    },
    // The sender is woken once the rows it should find are committed.
    committed: () => sender.wake(),
  });
}
