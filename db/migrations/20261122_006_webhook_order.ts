// The deliveries of one SMS to one webhook go out in order (the next waits until the previous
// one is delivered or given up). Each delivery row gets
// - ordering_key: what its order is kept within, per webhook: the SMS id for sms.status_changed,
//   null for events that are about no SMS in particular (device.*, sms.received);
// - seq: its place in that order, from a sequence. Two events of one SMS are written either in
//   one statement (in event order) or by transactions that hold the SMS row in turn, so seq
//   follows the order of the changes. created_at cannot: it is the same for a whole transaction.
// A partial index over the pending rows of each (webhook, SMS) lets the sender check "is an
// earlier delivery of this SMS still pending?" with one index probe (repository.ts).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Added without a default first: a volatile default would rewrite the whole delivery log.
  await knex.raw(`alter table webhook_deliveries add column seq bigint, add column ordering_key uuid`);
  await knex.raw(`create sequence webhook_deliveries_seq as bigint owned by webhook_deliveries.seq`);
  await knex.raw(`alter table webhook_deliveries alter column seq set default nextval('webhook_deliveries_seq')`);
  // Only pending rows take part in the ordering: number those already waiting by creation (rows
  // of one transaction tie on created_at and are taken by id, so an upgrade under load may send
  // such a pair in either order, once). Rows already delivered or failed are left alone (the log
  // may be long): retried by hand later, such an old row goes out without waiting for anything.
  await knex.raw(
    `update webhook_deliveries d
        set seq = o.n,
            ordering_key = case when d.event_type = 'sms.status_changed'
                                 and d.body::jsonb #>> '{data,sms,id}' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                                then (d.body::jsonb #>> '{data,sms,id}')::uuid end
       from (select id, row_number() over (order by created_at, id) as n from webhook_deliveries where status = 'pending') o
      where d.id = o.id`,
  );
  await knex.raw(`select setval('webhook_deliveries_seq', coalesce((select max(seq) from webhook_deliveries), 0) + 1, false)`);
  await knex.raw(
    `create index webhook_deliveries_chain on webhook_deliveries (webhook_id, ordering_key, seq)
      where status = 'pending' and ordering_key is not null`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index if exists webhook_deliveries_chain`);
  // The sequence is owned by the column and goes with it.
  await knex.raw(`alter table webhook_deliveries drop column ordering_key, drop column seq`);
}
