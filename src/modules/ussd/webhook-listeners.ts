// USSD webhook events, written to the outbox in the transaction that ends the session (a phone's
// final answer, or the expiry sweep's timeout), so an ended session always has its deliveries and
// a repeated answer never makes a second one: ussd.completed carries the network's answer,
// ussd.failed the error ("timeout", or the phone's reason), both the session as GET /ussd/{id} shows it.
import type { EventListeners } from '../../events/domain-events.ts';
import type { WebhookOutbox } from '../webhooks/ordering/outbox.ts';
import type { WebhookSender } from '../webhooks/outbound/sender.ts';
import type { UssdEvents } from './domain-events.ts';
import { presentUssd } from './presenter.ts';
import { ussdFinished } from './webhook-events.ts';

export function ussdWebhookListeners(outbox: WebhookOutbox, sender: WebhookSender): EventListeners<UssdEvents> {
  // The sender is woken once committed, when rows were written (the event is heard with the same payload both times).
  const withDeliveries = new WeakSet<object>();
  return {
    'ussd.finished': {
      inTransaction: async (trx, session) => {
        if ((await outbox.record(trx, [{ envelope: ussdFinished(session.account_id, presentUssd(session)) }])) > 0) withDeliveries.add(session);
      },
      committed: (session) => void (withDeliveries.has(session) && sender.wake()),
    },
  };
}
