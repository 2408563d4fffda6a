// Each device's changes between online and offline, for its availability report: one row per
// change, written when the change is announced. Rows go with their device and their account.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table device_availability (
      id bigserial primary key,
      account_id uuid not null references accounts(id) on delete cascade,
      device_id uuid not null references devices(id) on delete cascade,
      online boolean not null,
      at timestamptz not null
    )`);
  // A report reads one device's changes in a range and the last one before it; the pruning sweep
  // reads them by time.
  await knex.raw(`create index device_availability_device on device_availability (device_id, at desc, id desc)`);
  await knex.raw(`create index device_availability_at on device_availability (at)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table device_availability`);
}
