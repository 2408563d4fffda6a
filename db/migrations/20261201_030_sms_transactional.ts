// Whether an SMS was created past the suppression list: by a key holding sms:send_transactional,
// or as an opt-out confirmation. The list is checked again when a phone is about to be handed the
// SMS (a recipient may send STOP while it waits), and that check must let these through as the
// one at creation did. Existing rows were all created before the second check existed: false.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms add column transactional boolean not null default false`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms drop column transactional`);
}
