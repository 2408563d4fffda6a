// What the routes can decide by, besides destination and priority:
//
// - sms.category: what the client said the SMS is (otp, transactional, marketing; null: not
//   said), so that a route may send one-time codes upstream at once or marketing only through
//   phones. No check constraint: the API checks the set, and a later category then needs no
//   constraint dropped.
// - devices.group_name: a name the account gives some of its phones ("uk-sims"; null: none), so
//   that a route may keep an SMS for those phones only.
// - sms.device_group: the group an SMS is kept for while a route says so (null: any phone). The
//   phones' claim reads it on the rows it already reads: no index changes.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms add column category text`);
  await knex.raw(`alter table sms add column device_group text`);
  await knex.raw(`alter table devices add column group_name text`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table devices drop column group_name`);
  await knex.raw(`alter table sms drop column device_group`);
  await knex.raw(`alter table sms drop column category`);
}
