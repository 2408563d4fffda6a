// The heads of the delivery chains. The deliveries of one SMS to one webhook form a chain (same
// webhook_id and ordering_key, in seq order) and go out one after the other: only the chain's
// pending delivery of lowest seq, its head, may be sent. Each pending delivery carries whether it
// is a head (`ready`), so the claim finds heads through an index of ready rows and never reads
// the deliveries waiting behind them (repository.ts, claimDueDeliveries). Deliveries without an
// ordering key are always ready.
//
// Who moves the flag, and why it cannot be lost between two transactions:
// - Writing a delivery (outbox.ts): ready when nothing of its chain is pending. The pending rows
//   it finds are locked (FOR SHARE) in chain order, so a transaction that is recording the head as
//   done is waited for: the head then reads as no longer pending, and the new delivery is ready.
// - Recording outcomes (the sender), giving up expired deliveries, a retry by hand: in the same
//   transaction as the change, advanceChains() makes the lowest pending delivery of each chain
//   touched the only ready one. A delivery being written meanwhile holds its chain's pending rows
//   (shared), so that update waits for it and then sees it.
// - Those three hold their webhooks' rows (lockWebhooks, or the webhook's own update) before
//   touching a delivery, so only one of them moves a webhook's chains at a time. advanceChains()
//   reads the chain once and writes what it read: had it waited for another mover's row lock, it
//   would still write what it read before waiting (READ COMMITTED), and the two could leave a
//   chain with no head (the sweep giving up the delivery after a head the sender records as
//   delivered: the next one is never sent) or with two (a retry by hand beside that recording).
// Both sides take row locks in chain order (webhook, key, seq), heads before what follows them,
// so two such transactions never wait for each other in a circle. A transaction locks all the
// rows it writes in one ordered pass: recordAttempts locks the heads it records and the waiting
// deliveries it makes due together, first. Two passes, each in order, are not in order together:
// a waiting delivery of a later chain, held from the first pass, is what a delivery being written
// waits for while it holds the row of an earlier chain the second pass needs.
import type { Database, Executor } from '../../storage/database.ts';

export interface Chain {
  webhookId: string;
  orderingKey: string;
}


/**
 * Makes the pending delivery of lowest seq in each chain its only ready one. Reads the pending
 * rows of those chains alone (the chain index), writes only rows whose flag changes. The caller
 * holds the chains' webhook rows (see above). Answers the chains it gave a new head.
 */
export async function advanceChains(db: Executor, chains: Chain[]): Promise<Chain[]> {
  const unique = new Map(chains.map((chain) => [`${chain.webhookId}/${chain.orderingKey}`, chain]));
  if (unique.size === 0) return [];
  const list = [...unique.values()];
  // Driven from the chains, whatever the statistics say: each chain's pending rows through the
  // chain index (the lateral subquery is kept apart by "offset 0", and only that index gives its
  // "order by seq"), each of those by its id.
  const { rows } = await db.raw<{ rows: { webhook_id: string; ordering_key: string; ready: boolean }[] }>(
    `update webhook_deliveries t set ready = f.head
       from (select q.id, q.ready, q.id = first_value(q.id) over (partition by c.webhook_id, c.ordering_key order by q.seq) as head
               from unnest(?::uuid[], ?::uuid[]) as c(webhook_id, ordering_key)
               cross join lateral (
                     select q.id, q.seq, q.ready from webhook_deliveries q
                      where q.webhook_id = c.webhook_id and q.ordering_key = c.ordering_key and q.status = 'pending'
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
 * head, get their head back. No transaction leaves a chain so (above), but one that did would
 * hold its SMS's events for ever: they are never claimed, and never given up while the webhook
 * is on. Found from what is committed, then mended under the webhooks' rows as every mover does
 * (a webhook whose outcomes are being recorded right now is left to the next sweep). It reads
 * every pending delivery of an SMS, so it runs as seldom as the expiry sweep (sender.ts).
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

/** The chains of these deliveries (those with an ordering key). */
export function chainsOf(deliveries: { webhook_id: string; ordering_key: string | null }[]): Chain[] {
  return deliveries.flatMap((delivery) => (delivery.ordering_key === null ? [] : [{ webhookId: delivery.webhook_id, orderingKey: delivery.ordering_key }]));
}
