// A data SMS carries a binary payload (at most 140 bytes, base64 here) for an application port on
// the recipient's phone; its text is empty. A received SMS may arrive end-to-end encrypted from
// the phone (its sender and text ciphertext the gateway cannot read), which the row says so that
// every reader knows not to treat them as a number and a text.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms add column data text`);
  await knex.raw(`alter table sms add column data_port integer`);
  await knex.raw(
    `alter table sms add constraint sms_data_kind check (
       (kind = 'data') = (data is not null and data_port is not null) and (data_port is null or data_port between 1 and 65535))`,
  );
  await knex.raw(`alter table incoming_sms add column is_encrypted boolean not null default false`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table incoming_sms drop column is_encrypted`);
  await knex.raw(`alter table sms drop constraint sms_data_kind`);
  await knex.raw(`alter table sms drop column data_port`);
  await knex.raw(`alter table sms drop column data`);
}
