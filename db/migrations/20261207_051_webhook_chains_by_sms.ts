// The pending deliveries of a chain (one SMS to one webhook) found from the SMS: writing a delivery
// and moving a chain's head each read the chain's pending rows (ordering/chain-heads.ts). They were
// found through webhook_deliveries_chain, led by the webhook, and a young table's statistics made
// webhook_deliveries_waiting (also led by the webhook) look as cheap: most probes then read every
// pending delivery of the webhook, once per chain, a cost that grows with the webhook's backlog.
// Led by the SMS, this index is the only one the probes' condition fits (the webhook is checked on
// the rows it finds): a probe reads the few pending deliveries of one SMS, whatever the backlog.
// The probes no longer read webhook_deliveries_chain, but a node of the release before still does:
// its drop is a contract step for a later release.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create index if not exists webhook_deliveries_chain_by_sms on webhook_deliveries (ordering_key, seq)
      where status = 'pending' and ordering_key is not null`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index if exists webhook_deliveries_chain_by_sms`);
}
