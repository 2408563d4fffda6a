// The transactional outbox (DESIGN.md decision 3): events become delivery rows in the same
// transaction as the change they report, so a committed change always has its deliveries and a
// rolled-back one never does. The sender is woken after commit; its sweep catches the rest.
//
// Routing (spec 6.1): an SMS created with a callback_id has its events delivered to that webhook
// alone (when it is enabled); otherwise every enabled webhook of the account that has the event
// in its list gets it.
import type { Executor } from '../../storage/database.ts';
import type { WebhookEvent, EventEnvelope } from './events.ts';
import { enabledWebhooks, insertDeliveries, type NewDelivery } from './repository.ts';

export interface OutboxEvent {
  envelope: EventEnvelope;
  /** Set for SMS events of an SMS created with a callback_id. */
  callbackId?: string | null | undefined;
}

export class WebhookOutbox {
  constructor(private readonly retryForMs: number) {}

  /** Writes the deliveries of `events` on `db` (pass the transaction of the change). */
  async record(db: Executor, events: OutboxEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    const accounts = [...new Set(events.map((event) => event.envelope.account_id))];
    const webhooks = await enabledWebhooks(db, accounts);
    if (webhooks.length === 0) return 0;
    const retryUntil = new Date(Date.now() + this.retryForMs);
    const deliveries: NewDelivery[] = [];
    for (const { envelope, callbackId } of events) {
      const targets = webhooks.filter((webhook) =>
        webhook.account_id === envelope.account_id &&
        (callbackId ? webhook.id === callbackId : webhook.events.includes(envelope.type as WebhookEvent)),
      );
      if (targets.length === 0) continue;
      const body = JSON.stringify(envelope);
      for (const webhook of targets) {
        deliveries.push({
          webhook_id: webhook.id,
          account_id: envelope.account_id,
          event_id: envelope.id,
          event_type: envelope.type,
          body,
          retry_until: retryUntil,
        });
      }
    }
    await insertDeliveries(db, deliveries);
    return deliveries.length;
  }
}
