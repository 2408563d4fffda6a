// The key that seals webhook and Twilio secrets is checked against the database at start:
// - secret_key_check: one row, an HMAC of a fixed text under the key that sealed the first secret
//   (never the key). A gateway or command holding another key refuses to start instead of
//   sealing new secrets no other node can open.
// - twilio_credentials.auth_token_unreadable_at: when the gateway found it could not decrypt the
//   credential's auth token (sealed under another key); its requests are refused with a code that
//   says to rotate the token, and the credential's view says so. Cleared by a new token.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table secret_key_check (
      id smallint primary key check (id = 1),
      check_value text not null,
      created_at timestamptz not null default now()
    )`);
  await knex.raw(`alter table twilio_credentials add column auth_token_unreadable_at timestamptz`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table twilio_credentials drop column auth_token_unreadable_at`);
  await knex.raw(`drop table secret_key_check`);
}
