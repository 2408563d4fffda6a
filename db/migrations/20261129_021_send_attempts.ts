// Retrying failed sends, pausing failing SIMs, and spacing a device's sends.
//
// - sms.attempt counts the attempts an SMS has had (1 for the first). A send a phone failed with a
//   retryable error goes back to waiting (status pending, handed to no one) with attempt + 1 and
//   retry_at, before which no phone is handed it. retry_sim_slot names the SIM a retry on the same
//   named device must use; avoid_device_id keeps a pool SMS away from the phone that failed it when
//   that phone has no SIM left to try.
// - sms_attempts: one row per attempt (its device, SIM, times, result and error).
// - sim_health: per device and SIM slot, failures in a row with the same error code, and the pause
//   they caused. In PostgreSQL, so every gateway node routes around a paused SIM.
// - devices.max_send_attempts (null: the account's), accounts.max_send_attempts (default 2);
//   devices.send_jitter ({min_seconds, max_seconds} or null) and next_send_at, the earliest time
//   the device may be handed its next task.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms add column attempt smallint not null default 1`);
  await knex.raw(`alter table sms add column retry_at timestamptz`);
  await knex.raw(`alter table sms add column retry_sim_slot smallint`);
  await knex.raw(`alter table sms add column avoid_device_id uuid`);
  await knex.raw(`
    create table sms_attempts (
      sms_id uuid not null references sms(id) on delete cascade,
      attempt smallint not null,
      device_id uuid,
      sim_slot smallint,
      started_at timestamptz not null,
      ended_at timestamptz,
      result text not null default 'sending' check (result in ('sending', 'sent', 'failed')),
      error_code text,
      error text,
      retried boolean not null default false,
      primary key (sms_id, attempt)
    )`);
  await knex.raw(`
    create table sim_health (
      device_id uuid not null references devices(id) on delete cascade,
      sim_slot smallint not null,
      consecutive_failures integer not null default 0,
      last_error_code text,
      paused_until timestamptz,
      paused_reason text,
      primary key (device_id, sim_slot)
    )`);
  await knex.raw(`alter table devices add column max_send_attempts smallint check (max_send_attempts between 1 and 5)`);
  await knex.raw(`alter table devices add column send_jitter jsonb`);
  await knex.raw(`alter table devices add column next_send_at timestamptz`);
  await knex.raw(`alter table accounts add column max_send_attempts smallint not null default 2 check (max_send_attempts between 1 and 5)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table accounts drop column max_send_attempts`);
  await knex.raw(`alter table devices drop column next_send_at`);
  await knex.raw(`alter table devices drop column send_jitter`);
  await knex.raw(`alter table devices drop column max_send_attempts`);
  await knex.raw(`drop table sim_health`);
  await knex.raw(`drop table sms_attempts`);
  await knex.raw(`alter table sms drop column avoid_device_id`);
  await knex.raw(`alter table sms drop column retry_sim_slot`);
  await knex.raw(`alter table sms drop column retry_at`);
  await knex.raw(`alter table sms drop column attempt`);
}
