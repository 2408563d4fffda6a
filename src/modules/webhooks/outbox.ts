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
import type { Executor } from '../../storage/database.ts';
import { isUuid } from '../../common/object-id.ts';
import { PARKED } from './parking.ts';
import type { EventEnvelope } from './events.ts';

export interface OutboxEvent {
  envelope: EventEnvelope;
  /** Set for SMS events of an SMS created with a callback_id. */
  callbackId?: string | null | undefined;
  /** What is sent, when not the envelope as JSON: a webhook of another format's own body (delivery-format.ts). */
  body?: string;
}

/** A delivery of a webhook of another format (delivery-format.ts): its body is written by the module that owns it. */
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
   * many. Finding the target webhooks and writing the rows is one statement: an account without
   * webhooks costs one round trip that inserts nothing.
   */
  async record(db: Executor, events: OutboxEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    const column = <T>(pick: (event: OutboxEvent) => T) => events.map(pick);
    // A delivery is its chain's head (ready) when nothing of its chain is pending and it is the
    // first of its chain in this call. The pending rows it finds are locked in chain order so that
    // a head being recorded as done right now is waited for, then read as done (chain-heads.ts).
    // They are found chain by chain through the chain index, whatever the table's statistics say
    // ("offset 0" keeps each lateral probe apart; "order by seq" is what only the chain index
    // gives, so a young table's statistics cannot make another index look as cheap), then each
    // row by its id.
    // nextval is volatile, so it is computed after the sort: seq follows the order of `events`.
    const { rows } = await db.raw<{ rows: { n: number }[] }>(
      `with targets as materialized (
         select w.id as webhook_id, w.enabled, e.*,
                row_number() over (partition by w.id, e.ordering_key order by e.n) as place
           from unnest(?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::uuid[], ?::uuid[])
                with ordinality as e(account_id, event_id, event_type, body, callback_id, ordering_key, n)
           join webhooks w on w.account_id = e.account_id
                          and case when e.callback_id is not null then w.id = e.callback_id else e.event_type = any(w.events) end),
       pending as materialized (
         select p.webhook_id, p.ordering_key
           from (select distinct t.webhook_id, t.ordering_key from targets t where t.ordering_key is not null) c
           cross join lateral (
                 select p.id from webhook_deliveries p
                  where p.webhook_id = c.webhook_id and p.ordering_key = c.ordering_key and p.status = 'pending'
                  order by p.seq
                 offset 0) chain
           -- Checked again on the locked row: a head recorded as done meanwhile is not pending.
           join webhook_deliveries p on p.id = chain.id and p.status = 'pending'
          order by p.webhook_id, p.ordering_key, p.seq
          for share of p),
       written as (
         insert into webhook_deliveries (id, webhook_id, account_id, event_id, event_type, body, ordering_key, retry_until, next_attempt_at, created_at, seq, ready)
         select gen_random_uuid(), t.webhook_id, t.account_id, t.event_id, t.event_type, t.body, t.ordering_key, ?,
                case when t.enabled then now() else '${PARKED}' end, now(),
                nextval('webhook_deliveries_seq'),
                t.ordering_key is null
                  or (t.place = 1 and not exists (select 1 from pending p where p.webhook_id = t.webhook_id and p.ordering_key = t.ordering_key))
           from targets t
          order by t.n
         returning 1)
       select count(*)::int as n from written`,
      [
        column((event) => event.envelope.account_id),
        column((event) => event.envelope.id),
        column((event) => event.envelope.type),
        column((event) => event.body ?? JSON.stringify(event.envelope)),
        column((event) => event.callbackId ?? null),
        column((event) => orderingKey(event.envelope)),
        new Date(Date.now() + this.retryForMs),
      ] as never,
    );
    return rows[0]?.n ?? 0;
  }
}

/** The SMS an event is about, for sms.status_changed; null for events kept in no order. */
export function orderingKey(envelope: EventEnvelope): string | null {
  if (envelope.type !== 'sms.status_changed') return null;
  const id = (envelope.data.sms as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && isUuid(id) ? id : null;
}
