// What a device says it can do (its heartbeat's capabilities: MMS, USSD, data SMS, call
// recordings, the fingerprint of the end-to-end passphrase it holds). Null until a heartbeat says,
// and for an app that never does: such a device is taken to do everything, as before. An encrypted
// SMS may name the fingerprint of the passphrase it was encrypted with: only a device holding that
// passphrase is handed it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table devices add column capabilities jsonb`);
  await knex.raw(`alter table sms add column passphrase_fingerprint text`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms drop column passphrase_fingerprint`);
  await knex.raw(`alter table devices drop column capabilities`);
}
