// The Twilio-compatible API (src/modules/twilio/). A credential is an AccountSid and an auth
// token of one account: the token signs the callbacks, so it is kept sealed (the webhooks'
// SecretBox), never hashed. Callbacks go out through the webhook outbox as webhooks of their own
// format ("twilio": form-encoded, X-Twilio-Signature), which the webhook API never shows; each
// (credential, URL) has one such webhook, found through twilio_callbacks. twilio_messages names the
// StatusCallback of an SMS created through the Twilio API.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table webhooks add column format text not null default 'standard' check (format in ('standard', 'twilio'))`);
  await knex.raw(`
    create table twilio_credentials (
      sid text primary key,
      account_id uuid not null references accounts(id) on delete cascade,
      auth_token_encrypted text not null,
      friendly_name text not null default '',
      sms_url text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
  await knex.raw(`create index twilio_credentials_account on twilio_credentials (account_id, created_at desc)`);
  await knex.raw(`
    create table twilio_callbacks (
      credential_sid text not null references twilio_credentials(sid) on delete cascade,
      url text not null,
      webhook_id uuid not null references webhooks(id) on delete cascade,
      primary key (credential_sid, url)
    )`);
  await knex.raw(`
    create table twilio_messages (
      sms_id uuid primary key references sms(id) on delete cascade,
      credential_sid text not null references twilio_credentials(sid) on delete cascade,
      callback_webhook_id uuid references webhooks(id) on delete set null
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table twilio_messages`);
  await knex.raw(`drop table twilio_callbacks`);
  await knex.raw(`drop table twilio_credentials`);
  await knex.raw(`delete from webhooks where format <> 'standard'`);
  await knex.raw(`alter table webhooks drop column format`);
}
