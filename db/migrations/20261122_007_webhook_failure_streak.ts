// Webhooks are disabled by how long they have been failing, not by how many attempts failed:
// at a high event rate a one-second outage is hundreds of failed attempts.
// - webhooks.failing_since: when the current run of failures began (the first failed attempt
//   after a success); null while the endpoint works. Any success clears it.
// - webhooks.disabled_at: when the gateway (or the API) disabled it; null while enabled.
// - webhooks.recovered_at: when its last failure streak ended. An attempt that began before it
//   and failed says nothing new (it was on its way while the endpoint came back): it is retried
//   at once rather than after a backoff grown during the outage.
// - webhook_deliveries.leased_until: set while a sender holds the delivery (an attempt in
//   flight). When an endpoint recovers, its deliveries waiting for a backoff are sent at once;
//   this is how that step tells them from the ones being sent right now.
// All are added without a default, so no table is rewritten.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table webhooks add column failing_since timestamptz, add column disabled_at timestamptz, add column recovered_at timestamptz`);
  // A webhook already failing when this runs starts its streak now: it gets the full time.
  await knex.raw(`update webhooks set failing_since = now() where consecutive_failures > 0`);
  await knex.raw(`update webhooks set disabled_at = updated_at where not enabled`);
  await knex.raw(`alter table webhook_deliveries add column leased_until timestamptz`);
  // A webhook's waiting deliveries, found by webhook: pulled forward when its endpoint recovers,
  // given up when their retry window closes while it is disabled.
  await knex.raw(`create index webhook_deliveries_waiting on webhook_deliveries (webhook_id, next_attempt_at) where status = 'pending'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index if exists webhook_deliveries_waiting`);
  await knex.raw(`alter table webhook_deliveries drop column leased_until`);
  await knex.raw(`alter table webhooks drop column failing_since, drop column disabled_at, drop column recovered_at`);
}
