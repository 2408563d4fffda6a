// SMPP: the credentials an ESME binds with (system_id and the hash of its password, with the
// account's limits for it), which SMS came in over SMPP (so a status change knows it owes a
// delivery receipt, and to whom), and what waits to be sent to an ESME as deliver_sm (receipts
// and incoming SMS), kept in the database so that a restart or a dropped session loses none.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table smpp_credentials (
      id uuid primary key,
      account_id uuid not null references accounts(id) on delete cascade,
      system_id text not null,
      password_hash text not null,
      name text not null default '',
      device_ids text[] not null default '{}',
      throughput_per_second integer not null,
      window_size integer not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )`);
  // A system_id names one working credential; a revoked one may be issued again.
  await knex.raw(`create unique index smpp_credentials_system_id on smpp_credentials (system_id) where revoked_at is null`);
  await knex.raw(`create index smpp_credentials_account on smpp_credentials (account_id, created_at)`);
  await knex.raw(`
    create table smpp_submissions (
      sms_id uuid primary key,
      credential_id uuid not null references smpp_credentials(id) on delete cascade,
      source_addr text not null,
      registered_delivery smallint not null,
      created_at timestamptz not null default now()
    )`);
  await knex.raw(`
    create table smpp_receipts (
      id bigserial primary key,
      credential_id uuid not null references smpp_credentials(id) on delete cascade,
      kind text not null check (kind in ('receipt', 'incoming')),
      source_addr text not null,
      destination_addr text not null,
      short_message text not null,
      receipted_message_id text,
      message_state smallint,
      created_at timestamptz not null default now(),
      claimed_until timestamptz,
      attempts integer not null default 0
    )`);
  await knex.raw(`create index smpp_receipts_credential on smpp_receipts (credential_id, id)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table smpp_receipts`);
  await knex.raw(`drop table smpp_submissions`);
  await knex.raw(`drop table smpp_credentials`);
}
