// Fleet health: whether each SIM of an account really sends and receives.
//
// - canary_settings: an account's canary rounds (off by default). In a round each eligible SIM
//   sends one short coded SMS to another SIM of the account; the round's SMS are ordinary rows of
//   the sms table with kind 'canary', so that pacing, dispatch and statuses serve them as any SMS.
// - canary_probes: one row per canary SMS of a round: who sent, who should receive, the code,
//   and how it ended (passed when the receiving phone reported the code in time).
// - sim_health gains the SIM's degraded state: set when the rounds find the SIM at fault, cleared
//   when a canary passes again or the owner marks it healthy. `degraded_fault` says which side
//   failed: 'send' keeps new work away from the SIM, 'receive' is shown and announced only.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms drop constraint sms_kind_known`);
  await knex.raw(`alter table sms add constraint sms_kind_known check (kind in ('text', 'data', 'mms', 'canary'))`);
  await knex.raw(`
    create table canary_settings (
      account_id uuid primary key references accounts(id) on delete cascade,
      enabled boolean not null default false,
      interval_minutes integer not null default 60 check (interval_minutes between 1 and 1440),
      timeout_seconds integer not null default 300 check (timeout_seconds between 10 and 3600),
      next_round_at timestamptz,
      last_round_at timestamptz,
      rounds_run integer not null default 0,
      updated_at timestamptz not null default now()
    )`);
  await knex.raw(`create index canary_settings_due on canary_settings (next_round_at) where enabled`);
  await knex.raw(`
    create table canary_probes (
      id uuid primary key,
      account_id uuid not null references accounts(id) on delete cascade,
      round_id uuid not null,
      round_number integer not null,
      sender_device_id uuid not null references devices(id) on delete cascade,
      sender_sim smallint not null,
      receiver_device_id uuid not null references devices(id) on delete cascade,
      receiver_sim smallint not null,
      code text not null,
      sms_id uuid not null,
      created_at timestamptz not null,
      deadline_at timestamptz not null,
      result text not null default 'pending' check (result in ('pending', 'passed', 'failed')),
      failure text,
      ended_at timestamptz,
      round_trip_ms integer
    )`);
  await knex.raw(`create unique index canary_probes_pending_code on canary_probes (account_id, code) where result = 'pending'`);
  await knex.raw(`create index canary_probes_deadline on canary_probes (deadline_at) where result = 'pending'`);
  // A code heard again after its probe ended (a repeated report, a late arrival) is still the
  // gateway's own check, never a received SMS: looked up whatever the probe's result.
  await knex.raw(`create index canary_probes_code on canary_probes (account_id, code)`);
  await knex.raw(`create index canary_probes_sms on canary_probes (sms_id) where result = 'pending'`);
  // Whether a round still has probes under way: the judge weighs a round once its last probe ends.
  await knex.raw(`create index canary_probes_round_pending on canary_probes (round_id) where result = 'pending'`);
  await knex.raw(`create index canary_probes_sender on canary_probes (sender_device_id, created_at desc)`);
  await knex.raw(`create index canary_probes_receiver on canary_probes (receiver_device_id, created_at desc)`);
  await knex.raw(`create index canary_probes_account on canary_probes (account_id, created_at)`);
  // Canary SMS are listed only when asked for (kind=canary): their own small index, and they are
  // not counted in the account's SMS count (the legacy list's total_records).
  await knex.raw(`create index sms_canary on sms (account_id, created_at desc, id desc) where kind = 'canary'`);
  for (const statement of countingFunctions(`and kind <> 'canary'`)) await knex.raw(statement);
  await knex.raw(`alter table sim_health add column degraded_since timestamptz`);
  await knex.raw(`alter table sim_health add column degraded_reason text`);
  await knex.raw(`alter table sim_health add column degraded_fault text check (degraded_fault in ('send', 'receive'))`);
  // When the SIM last stopped being degraded (it recovered, or the owner marked it healthy): the
  // canary failures before then were answered, and are not weighed again.
  await knex.raw(`alter table sim_health add column cleared_at timestamptz`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table sim_health drop column cleared_at`);
  await knex.raw(`alter table sim_health drop column degraded_fault`);
  await knex.raw(`alter table sim_health drop column degraded_reason`);
  await knex.raw(`alter table sim_health drop column degraded_since`);
  await knex.raw(`drop index sms_canary`);
  await knex.raw(`drop table canary_probes`);
  await knex.raw(`drop table canary_settings`);
  await knex.raw(`delete from sms where kind = 'canary'`);
  for (const statement of countingFunctions('')) await knex.raw(statement);
  await knex.raw(`alter table sms drop constraint sms_kind_known`);
  await knex.raw(`alter table sms add constraint sms_kind_known check (kind in ('text', 'data', 'mms'))`);
}

/** The triggers' functions of migration 038, counting only the rows `also` keeps besides. */
function countingFunctions(also: string): string[] {
  return [
    `create or replace function count_inserted_sms() returns trigger language plpgsql as $$
    begin
      insert into sms_counts (account_id, slot, sms)
        select account_id, pg_backend_pid() % 16, count(*) from inserted where true ${also} group by account_id order by account_id
        on conflict (account_id, slot) do update set sms = sms_counts.sms + excluded.sms;
      return null;
    end $$`,
    `create or replace function count_deleted_sms() returns trigger language plpgsql as $$
    begin
      insert into sms_counts (account_id, slot, sms)
        select deleted.account_id, pg_backend_pid() % 16, -count(*) from deleted
         where exists (select 1 from accounts where accounts.id = deleted.account_id) ${also}
         group by deleted.account_id order by deleted.account_id
        on conflict (account_id, slot) do update set sms = sms_counts.sms + excluded.sms;
      return null;
    end $$`,
  ];
}
