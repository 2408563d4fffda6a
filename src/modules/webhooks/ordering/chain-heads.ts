// The heads of the delivery chains. The deliveries of one SMS to one webhook form a chain (same
// webhook_id and ordering_key, in seq order) and go out one after the other: only the chain's
// pending delivery of lowest seq, its head, may be sent. Each pending delivery carries whether it
// is a head (`ready`), so the claim finds heads through an index of ready rows and never reads
// the deliveries waiting behind them (../repository.ts, claimDueDeliveries). Deliveries without an
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
// The statements that move the flag are in repository.ts beside this file.

export interface Chain {
  webhookId: string;
  orderingKey: string;
}

/** The chains of these deliveries (those with an ordering key). */
export function chainsOf(deliveries: { webhook_id: string; ordering_key: string | null }[]): Chain[] {
  return deliveries.flatMap((delivery) => (delivery.ordering_key === null ? [] : [{ webhookId: delivery.webhook_id, orderingKey: delivery.ordering_key }]));
}
