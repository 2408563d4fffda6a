// Ordered webhook delivery at a cost that does not grow with the backlog. Only the first pending
// delivery of each (webhook, SMS) chain may be sent; the claim used to find those heads by
// reading past every delivery waiting behind one, so a burst of SMS slowed every claim in
// proportion to its size. Now each pending delivery says whether it is its chain's head:
// - webhook_deliveries.ready: true for a delivery the sender may claim: every pending delivery
//   without an ordering key, and the pending delivery of lowest seq in each chain. It is set when
//   the delivery is written (if nothing of its chain is pending) and moved to the next delivery
//   in the transaction that records the head as delivered or given up (repository.ts).
// - webhook_deliveries_ready: the claim's index, the ready pending rows by next_attempt_at. A
//   claim reads as many index entries as it takes rows, however many deliveries wait behind heads.
// The claim no longer needs webhook_deliveries_due (every pending row by next_attempt_at).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A constant default: the column is added without rewriting the table.
  await knex.raw(`alter table webhook_deliveries add column ready boolean not null default false`);
  await knex.raw(`update webhook_deliveries set ready = true where status = 'pending' and ordering_key is null`);
  await knex.raw(
    `update webhook_deliveries d set ready = true
       from (select distinct on (webhook_id, ordering_key) id from webhook_deliveries
              where status = 'pending' and ordering_key is not null
              order by webhook_id, ordering_key, seq) head
      where d.id = head.id`,
  );
  await knex.raw(`create index webhook_deliveries_ready on webhook_deliveries (next_attempt_at) where status = 'pending' and ready`);
  await knex.raw(`drop index if exists webhook_deliveries_due`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`create index if not exists webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`);
  await knex.raw(`drop index if exists webhook_deliveries_ready`);
  await knex.raw(`alter table webhook_deliveries drop column ready`);
}
