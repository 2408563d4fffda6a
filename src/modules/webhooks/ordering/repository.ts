// The ordering's SQL: writing deliveries with their chain-head flag (outbox.ts), moving the flag
// when a chain's head ends and mending chains left without one (chain-heads.ts says who moves it
// and why it cannot be lost), and parking the deliveries of disabled webhooks (parking.ts).
import type { Database, Executor } from '../../../storage/database.ts';
import { chainsOf, type Chain } from './chain-heads.ts';
import { PARKED } from './parking.ts';

/**
 * The condition of a probe of one chain's pending deliveries (`row` of webhook_deliveries, `chain`
 * giving webhook_id and ordering_key). The SMS (ordering_key) is the only part an index can take:
 * webhook_deliveries_chain_by_sms, which holds the few pending deliveries of an SMS. The webhook is
 * compared on the rows found, written so that no index takes it ("is true"): taken by
 * webhook_deliveries_waiting, which a young table's statistics made look as cheap, a probe read
 * every pending delivery of the webhook, once per chain.
 */
const CHAIN_PROBE = (row: string, chain: string) =>
  `${row}.ordering_key = ${chain}.ordering_key and ${row}.status = 'pending' and (${row}.webhook_id = ${chain}.webhook_id) is true`;

/** One delivery to write, for every webhook its event goes to. */
export interface DeliveryToWrite {
  accountId: string;
  eventId: string;
  eventType: string;
  /** What is sent: the envelope as JSON, or a webhook of another format's own body. */
  body: string;
  /** The one webhook it goes to; null: every webhook of the account that has its type in its list. */
  callbackId: string | null;
  /** The SMS whose deliveries to one webhook go out in order; null for events kept in no order. */
  orderingKey: string | null;
}

/**
 * Writes the deliveries of `rows`, due now (parked for a disabled webhook), retried until
 * `retryUntil`. Answers how many were written.
 */
export async function insertDeliveries(db: Executor, rows: DeliveryToWrite[], retryUntil: Date): Promise<number> {
  if (rows.length === 0) return 0;
  const column = <T>(pick: (row: DeliveryToWrite) => T) => rows.map(pick);
  // A delivery is its chain's head (ready) when nothing of its chain is pending and it is the
  // first of its chain in this call. The pending rows it finds are locked in chain order so that
  // a head being recorded as done right now is waited for, then read as done (chain-heads.ts).
  // They are found chain by chain through the SMS's pending deliveries, whatever the table's
  // statistics say (CHAIN_PROBE), then each row by its id.
  // nextval is volatile, so it is computed after the sort: seq follows the order of `rows`.
  const { rows: written } = await db.raw<{ rows: { n: number }[] }>(
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
                  where ${CHAIN_PROBE('p', 'c')}
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
      column((row) => row.accountId),
      column((row) => row.eventId),
      column((row) => row.eventType),
      column((row) => row.body),
      column((row) => row.callbackId),
      column((row) => row.orderingKey),
      retryUntil,
    ] as never,
  );
  return written[0]?.n ?? 0;
}

/**
 * Makes the pending delivery of lowest seq in each chain its only ready one. Reads the pending
 * rows of those chains alone (through their SMS), writes only rows whose flag changes. The caller
 * holds the chains' webhook rows (chain-heads.ts). Answers the chains it gave a new head.
 */
export async function advanceChains(db: Executor, chains: Chain[]): Promise<Chain[]> {
  const unique = new Map(chains.map((chain) => [`${chain.webhookId}/${chain.orderingKey}`, chain]));
  if (unique.size === 0) return [];
  const list = [...unique.values()];
  // Driven from the chains, whatever the statistics say: each chain's pending rows through its
  // SMS's (CHAIN_PROBE; the lateral subquery is kept apart by "offset 0"), each of those by its id.
  const { rows } = await db.raw<{ rows: { webhook_id: string; ordering_key: string; ready: boolean }[] }>(
    `update webhook_deliveries t set ready = f.head
       from (select q.id, q.ready, q.id = first_value(q.id) over (partition by c.webhook_id, c.ordering_key order by q.seq) as head
               from unnest(?::uuid[], ?::uuid[]) as c(webhook_id, ordering_key)
               cross join lateral (
                     select q.id, q.seq, q.ready from webhook_deliveries q
                      where ${CHAIN_PROBE('q', 'c')}
                      order by q.seq
                     offset 0) q) f
      where t.id = f.id and f.ready is distinct from f.head and t.status = 'pending'
      returning t.webhook_id, t.ordering_key, t.ready`,
    [list.map((chain) => chain.webhookId), list.map((chain) => chain.orderingKey)] as never,
  );
  return chainsOf(rows.filter((row) => row.ready));
}

/**
 * The second line of defence: chains whose pending deliveries are all waiting, none of them the
 * head, get their head back. No transaction leaves a chain so (chain-heads.ts), but one that did
 * would hold its SMS's events for ever: they are never claimed, and never given up while the webhook
 * is on. Found from what is committed, then mended under the webhooks' rows as every mover does
 * (a webhook whose outcomes are being recorded right now is left to the next sweep). It reads
 * every pending delivery of an SMS, so it runs as seldom as the expiry sweep (outbound/sender.ts).
 * Answers the chains it mended.
 */
export async function restoreMissingHeads(db: Database): Promise<Chain[]> {
  const { rows: headless } = await db.raw<{ rows: { webhook_id: string; ordering_key: string }[] }>(
    `select webhook_id, ordering_key
       from (select distinct on (webhook_id, ordering_key) webhook_id, ordering_key, ready
               from webhook_deliveries
              where status = 'pending' and ordering_key is not null
              order by webhook_id, ordering_key, seq) first_pending
      where not ready`,
  );
  if (headless.length === 0) return [];
  return db.transaction(async (trx) => {
    const { rows: held } = await trx.raw<{ rows: { id: string }[] }>(
      `select id from webhooks where id = any(?::uuid[]) order by id for no key update skip locked`,
      [[...new Set(headless.map((chain) => chain.webhook_id))]] as never,
    );
    const ours = new Set(held.map((webhook) => webhook.id));
    const chains = chainsOf(headless.filter((chain) => ours.has(chain.webhook_id)));
    // Read again under the lock: only chains still without a head are mended.
    return advanceChains(trx, chains);
  });
}

/** Parks the due deliveries of disabled webhooks (not those in flight: their lease stands). */
export async function parkDisabled(db: Executor): Promise<number> {
  // SKIP LOCKED: a row someone holds (a delivery being written beside it) waits for the next sweep.
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `with due as (
       select d.id from webhooks w
        cross join lateral (
              select q.id from webhook_deliveries q
               where q.webhook_id = w.id and q.status = 'pending' and q.next_attempt_at <= now()
              offset 0) q
         join webhook_deliveries d on d.id = q.id
        where not w.enabled and d.status = 'pending' and (d.leased_until is null or d.leased_until <= now())
        for update of d skip locked)
     update webhook_deliveries d set next_attempt_at = '${PARKED}' from due where d.id = due.id
     returning 1`,
  );
  return rows.length;
}

/** Makes the parked deliveries of webhooks switched on in the last minute due now. */
export async function unparkRecentlyEnabled(db: Executor): Promise<number> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `with parked as (
       select d.id from webhooks w
        cross join lateral (
              select q.id from webhook_deliveries q
               where q.webhook_id = w.id and q.status = 'pending' and q.next_attempt_at = '${PARKED}'
              offset 0) q
         join webhook_deliveries d on d.id = q.id
        where w.enabled and w.updated_at > now() - interval '1 minute' and d.status = 'pending'
        for update of d skip locked)
     update webhook_deliveries d set next_attempt_at = now() from parked where d.id = parked.id
     returning 1`,
  );
  return rows.length;
}
