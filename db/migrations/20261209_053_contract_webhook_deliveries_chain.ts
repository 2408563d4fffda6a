// The index of pending deliveries led by the webhook, webhook_deliveries_chain: chains are found
// through their SMS since 20261207_051 (webhook_deliveries_chain_by_sms), so every pending
// delivery, written and rewritten three or four times on its way, paid for an index nothing reads.
// A node of the release before 051 probed chains through it and refuses to start on a database
// with this step (its name says contract): upgrade through 051's release first.
import type { Knex } from 'knex';

export const contract = {
  expandedIn: '20261207_051_webhook_chains_by_sms',
  why: 'every node since 20261207_051 finds the pending deliveries of a chain through webhook_deliveries_chain_by_sms; nothing reads webhook_deliveries_chain',
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists webhook_deliveries_chain');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `create index if not exists webhook_deliveries_chain on webhook_deliveries (webhook_id, ordering_key, seq)
      where status = 'pending' and ordering_key is not null`,
  );
}
