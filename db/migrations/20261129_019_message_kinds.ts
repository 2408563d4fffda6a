// What an SMS row carries. Most rows are plain text; a data SMS carries a binary payload for an
// application port on the phone, an MMS carries media parts (kept in their own table), and an
// end-to-end encrypted message carries ciphertext the gateway cannot read. They share the sms
// table so that pacing, failover, cancelling, listing, statuses and webhooks serve them all alike.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms add column kind text not null default 'text'`);
  await knex.raw(`alter table sms add constraint sms_kind_known check (kind in ('text', 'data', 'mms'))`);
  await knex.raw(`alter table sms add column is_encrypted boolean not null default false`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms drop column is_encrypted`);
  await knex.raw(`alter table sms drop constraint sms_kind_known`);
  await knex.raw(`alter table sms drop column kind`);
}
