// Opt-out and inbound rules. An account's suppression list (numbers that asked not to be sent to,
// by a STOP keyword, the API or a CSV import) and its opt-out settings (a missing row means the
// defaults: opt-out handling on, no extra keywords, no confirmations). Inbound rules, in order,
// with their hit and time-out counts; the last auto-reply to each sender (so two auto-responders
// cannot answer each other forever); and the tags rules put on received SMS.
import type { Knex } from 'knex';

/** Every permission there was before these (frozen here: the list in the code moves on). */
const ALL_BEFORE = [
  'sms:send', 'sms:read', 'sms:delete', 'devices:read', 'devices:settings', 'devices:write', 'devices:monitor',
  'webhooks:read', 'webhooks:write', 'keys:manage', 'users:manage', 'calls:read', 'calls:delete',
];
/**
 * Given to the keys that held every older permission, as a new feature's permissions always are.
 * sms:send_transactional is not: sending past the suppression list is chosen, never inherited.
 */
const NEW_PERMISSIONS = ['suppressions:read', 'suppressions:write', 'inbound_rules:read', 'inbound_rules:write'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table opt_out_settings (
      account_id uuid primary key references accounts(id) on delete cascade,
      enabled boolean not null default true,
      extra_keywords text[] not null default '{}',
      help_text text,
      stop_reply text,
      start_reply text,
      updated_at timestamptz not null default now()
    )`);
  await knex.raw(`
    create table suppressions (
      id uuid primary key,
      account_id uuid not null references accounts(id) on delete cascade,
      phone text not null,
      source text not null check (source in ('keyword', 'api', 'import')),
      keyword text,
      created_at timestamptz not null default now()
    )`);
  await knex.raw(`create unique index suppressions_account_phone on suppressions (account_id, phone)`);
  await knex.raw(`create index suppressions_account_created on suppressions (account_id, created_at, id)`);
  await knex.raw(`
    create table inbound_rules (
      id uuid primary key,
      account_id uuid not null references accounts(id) on delete cascade,
      position integer not null,
      name text not null default '',
      enabled boolean not null default true,
      match_keyword text,
      match_regex text,
      match_sender text,
      match_device_id uuid,
      match_sim_slot smallint,
      action text not null check (action in ('auto_reply', 'forward_sms', 'forward_email', 'tag')),
      reply_text text,
      forward_to text,
      email_to text,
      tags text[] not null default '{}',
      stop_after boolean not null default false,
      hits bigint not null default 0,
      regex_timeouts bigint not null default 0,
      last_hit_at timestamptz,
      last_timeout_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
  await knex.raw(`create index inbound_rules_account on inbound_rules (account_id, position)`);
  await knex.raw(`
    create table inbound_auto_replies (
      account_id uuid not null references accounts(id) on delete cascade,
      phone text not null,
      replied_at timestamptz not null,
      primary key (account_id, phone)
    )`);
  await knex.raw(`
    create table incoming_sms_tags (
      incoming_sms_id uuid not null references incoming_sms(id) on delete cascade,
      account_id uuid not null references accounts(id) on delete cascade,
      tag text not null,
      primary key (incoming_sms_id, tag)
    )`);
  await knex.raw(`create index incoming_sms_tags_account_tag on incoming_sms_tags (account_id, tag)`);
  for (const permission of NEW_PERMISSIONS) {
    await knex.raw(
      `update api_keys set permissions = array_append(permissions, ?) where permissions @> ?::text[] and not (? = any(permissions))`,
      [permission, ALL_BEFORE, permission],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const permission of [...NEW_PERMISSIONS, 'sms:send_transactional']) {
    await knex.raw(`update api_keys set permissions = array_remove(permissions, ?)`, [permission]);
  }
  await knex.raw(`drop table incoming_sms_tags`);
  await knex.raw(`drop table inbound_auto_replies`);
  await knex.raw(`drop table inbound_rules`);
  await knex.raw(`drop table suppressions`);
  await knex.raw(`drop table opt_out_settings`);
}
