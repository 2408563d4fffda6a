// Upstream routes: an account's providers (an SMSC over SMPP, a service speaking Twilio's Messages
// API) that carry its SMS when its phones cannot, and the ordered rules that say when.
//
// - upstreams: one provider connection of an account; its secret (SMPP password, auth token) kept
//   sealed like webhook secrets, its other settings as given; prices and a monthly budget.
// - account_routes: the account's rules, in order (absent: every SMS goes to its phones).
// - upstream_submissions: what a provider answered for each SMS it took, one row per part it
//   named, so that a receipt finds its SMS.
// - upstream_month_usage: segments and spend per upstream and calendar month (UTC), for the budget.
// - sms gains the upstream carrying it and what the router needs to wait and retry.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table upstreams (
      id uuid primary key,
      account_id uuid not null references accounts(id) on delete cascade,
      name text not null,
      kind text not null check (kind in ('smpp', 'twilio')),
      settings jsonb not null,
      secret_encrypted text not null,
      enabled boolean not null default true,
      price_per_segment numeric(12, 6),
      prefix_prices jsonb not null default '[]',
      monthly_budget numeric(14, 4),
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`);
  await knex.raw(`create unique index upstreams_account_name on upstreams (account_id, lower(name))`);
  await knex.raw(`
    create table account_routes (
      account_id uuid primary key references accounts(id) on delete cascade,
      rules jsonb not null,
      updated_at timestamptz not null
    )`);
  await knex.raw(`
    create table upstream_submissions (
      upstream_id uuid not null references upstreams(id) on delete cascade,
      provider_id text not null,
      sms_id uuid not null references sms(id) on delete cascade,
      created_at timestamptz not null,
      primary key (upstream_id, provider_id)
    )`);
  await knex.raw(`create index upstream_submissions_sms on upstream_submissions (sms_id)`);
  await knex.raw(`
    create table upstream_month_usage (
      upstream_id uuid not null references upstreams(id) on delete cascade,
      month text not null,
      segments integer not null default 0,
      spent numeric(14, 4) not null default 0,
      primary key (upstream_id, month)
    )`);
  await knex.raw(`alter table sms add column upstream_id uuid references upstreams(id) on delete set null`);
  // When the router looks at the SMS again: the rule's wait for phones, or an upstream's retry.
  await knex.raw(`alter table sms add column route_check_at timestamptz`);
  // Which rule carries it now (0-based; -1: no rule applies, the phones keep it), since when,
  // and how often its upstream was tried.
  await knex.raw(`alter table sms add column route_rule smallint`);
  await knex.raw(`alter table sms add column route_since timestamptz`);
  await knex.raw(`alter table sms add column upstream_tries smallint not null default 0`);
  await knex.raw(`create index sms_route_due on sms (route_check_at) where route_check_at is not null`);
  // Submissions under way, oldest first: one that never answered is found by its age.
  await knex.raw(`create index sms_upstream_in_flight on sms (route_since) where status = 'processing' and upstream_id is not null`);
  await knex.raw(`alter table sms_attempts add column upstream_id uuid`);
  // An SMS sent to the account through a provider is received by no phone.
  await knex.raw(`alter table incoming_sms alter column device_id drop not null`);
  await knex.raw(`alter table incoming_sms add column upstream_id uuid references upstreams(id) on delete set null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table incoming_sms drop column upstream_id`);
  await knex.raw(`delete from incoming_sms where device_id is null`);
  await knex.raw(`alter table incoming_sms alter column device_id set not null`);
  await knex.raw(`alter table sms_attempts drop column upstream_id`);
  await knex.raw(`drop index sms_upstream_in_flight`);
  await knex.raw(`drop index sms_route_due`);
  for (const column of ['upstream_tries', 'route_since', 'route_rule', 'route_check_at', 'upstream_id']) await knex.raw(`alter table sms drop column ${column}`);
  for (const table of ['upstream_month_usage', 'upstream_submissions', 'account_routes', 'upstreams']) await knex.raw(`drop table ${table}`);
}
