// mms.received, written to the outbox in the transaction that ends the MMS (its last part
// uploaded, the rest refused, or the wait for them over), so an ended MMS always has its
// deliveries and a repeated upload never makes a second one. It carries the MMS with its status,
// its parts' metadata, download paths and missing reasons, never the bytes.
import type { EventListeners } from '../../events/domain-events.ts';
import type { WebhookOutbox } from '../webhooks/ordering/outbox.ts';
import type { WebhookSender } from '../webhooks/outbound/sender.ts';
import type { MmsEvents } from './domain-events.ts';
import { presentIncomingMms } from './presenter.ts';
import { mmsReceived } from './webhook-events.ts';

export function mmsWebhookListeners(outbox: WebhookOutbox, sender: WebhookSender): EventListeners<MmsEvents> {
  const withDeliveries = new WeakSet<object>();
  return {
    'mms.received': {
      inTransaction: async (trx, received) => {
        const envelope = mmsReceived(received.mms.account_id, presentIncomingMms(received));
        if ((await outbox.record(trx, [{ envelope }])) > 0) withDeliveries.add(received);
      },
      committed: (received) => void (withDeliveries.has(received) && sender.wake()),
    },
  };
}
