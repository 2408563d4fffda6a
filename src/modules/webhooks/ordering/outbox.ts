// The transactional outbox (architecture decision 3): events become delivery rows in the same
// transaction as the change they report, so a committed change always has its deliveries and a
// rolled-back one never does. The sender is woken after commit; its sweep catches the rest.
//
// Routing: an SMS created with a callback_id has its events delivered to that webhook
// alone; otherwise every webhook of the account that has the event in its list gets it.
// Disabled webhooks get their rows too, parked (parking.ts): the sender leaves them waiting, and
// they go out if the webhook is switched back on within their retry window (or are given up when
// it closes). So a
// receiver that was down and disabled misses nothing it could still be sent.
//
// Order: the deliveries of one SMS to one webhook go out one after the other (the sender sends
// the next once the previous is delivered or given up; chain-heads.ts). Each row carries the SMS id as its
// ordering key and a seq from a sequence; rows written by one call take seq in the order of
// `events`, and a later call for the same SMS comes from a transaction that locked the SMS row
// after the earlier one committed, so its seq is higher. Events about no SMS have no key.
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../../storage/database.ts';
import { isUuid } from '../../../common/object-id.ts';
import { insertDeliveries } from './repository.ts';
import type { EventEnvelope } from '../event-contract.ts';

export interface OutboxEvent {
  envelope: EventEnvelope;
  /** Set for SMS events of an SMS created with a callback_id. */
  callbackId?: string | null | undefined;
  /** What is sent, when not the envelope as JSON: a webhook of another format's own body (../outbound/delivery-format.ts). */
  body?: string;
}

/** A delivery of a webhook of another format (../outbound/delivery-format.ts): its body is written by the module that owns it. */
export interface FormattedDelivery {
  accountId: string;
  webhookId: string;
  body: string;
  /** The SMS it reports on, whose deliveries to one webhook go out in order; absent for an incoming SMS. */
  smsId?: string;
}

/** The outbox event of a formatted delivery: routed to its webhook alone, in its SMS's chain. */
export function formattedEvent(delivery: FormattedDelivery): OutboxEvent {
  return {
    envelope: {
      id: randomUUID(),
      type: delivery.smsId ? 'sms.status_changed' : 'sms.received',
      timestamp: new Date().toISOString(),
      account_id: delivery.accountId,
      data: delivery.smsId ? { sms: { id: delivery.smsId } } : {},
    },
    callbackId: delivery.webhookId,
    body: delivery.body,
  };
}

export class WebhookOutbox {
  constructor(private readonly retryForMs: number) {}

  /**
   * Writes the deliveries of `events` on `db` (pass the transaction of the change); returns how
   * many. Finding the target webhooks and writing the rows is one statement (insertDeliveries in
   * repository.ts): an account without webhooks costs one round trip that inserts nothing.
   */
  async record(db: Executor, events: OutboxEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    return insertDeliveries(
      db,
      events.map((event) => ({
        accountId: event.envelope.account_id,
        eventId: event.envelope.id,
        eventType: event.envelope.type,
        body: event.body ?? JSON.stringify(event.envelope),
        callbackId: event.callbackId ?? null,
        orderingKey: orderingKey(event.envelope),
      })),
      new Date(Date.now() + this.retryForMs),
    );
  }
}

/** The SMS an event is about, for sms.status_changed; null for events kept in no order. */
export function orderingKey(envelope: EventEnvelope): string | null {
  if (envelope.type !== 'sms.status_changed') return null;
  const id = (envelope.data.sms as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && isUuid(id) ? id : null;
}
