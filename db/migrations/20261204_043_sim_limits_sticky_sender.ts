// Limits carriers put on a SIM, and a recipient's SIM.
//
// - devices.sim_limits: per SIM slot ("0"-"7"), {per_day, per_month, recipients_per_month}, each a
//   number or absent (no limit). {} for a device without any: its claims read none of the below.
// - device_dispatches.sim_slot: the SIM a task was handed to the phone for, when the gateway chose
//   it at the claim (a device with SIM limits, an account with sticky sender). A SIM's rolling day
//   counts these rows, as the device's per_day counts all of them.
// - sim_month_usage: per device, SIM and calendar month (UTC), the tasks handed out and the
//   distinct recipients; sim_month_recipients: those recipients, so that one already counted is
//   not counted again. Months are kept until the month after the next begins.
// - sticky_senders: per account and recipient, the SIM (device and slot) it last got an SMS from.
// - delivery_settings: an account's delivery choices (sticky_sender), one row per account that
//   changed one.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table devices add column sim_limits jsonb not null default '{}'::jsonb`);
  await knex.raw(`alter table device_dispatches add column sim_slot smallint`);
  await knex.raw(`create index device_dispatches_sim on device_dispatches (device_id, sim_slot, dispatched_at) where sim_slot is not null`);
  await knex.raw(`alter table sms add column dispatch_sim_slot smallint`);
  await knex.raw(`
    create table sim_month_usage (
      device_id uuid not null references devices(id) on delete cascade,
      sim_slot smallint not null,
      month date not null,
      sent integer not null default 0,
      recipients integer not null default 0,
      primary key (device_id, sim_slot, month)
    )`);
  await knex.raw(`
    create table sim_month_recipients (
      device_id uuid not null references devices(id) on delete cascade,
      sim_slot smallint not null,
      month date not null,
      phone text not null,
      primary key (device_id, month, phone, sim_slot)
    )`);
  await knex.raw(`create index sim_month_recipients_month on sim_month_recipients (month)`);
  await knex.raw(`
    create table sticky_senders (
      account_id uuid not null references accounts(id) on delete cascade,
      phone text not null,
      device_id uuid not null references devices(id) on delete cascade,
      sim_slot smallint not null,
      updated_at timestamptz not null,
      primary key (account_id, phone)
    )`);
  await knex.raw(`create index sticky_senders_device on sticky_senders (device_id)`);
  await knex.raw(`
    create table delivery_settings (
      account_id uuid primary key references accounts(id) on delete cascade,
      sticky_sender boolean not null default false,
      updated_at timestamptz not null default now()
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table delivery_settings`);
  await knex.raw(`drop table sticky_senders`);
  await knex.raw(`drop table sim_month_recipients`);
  await knex.raw(`drop table sim_month_usage`);
  await knex.raw(`alter table sms drop column dispatch_sim_slot`);
  await knex.raw(`drop index device_dispatches_sim`);
  await knex.raw(`alter table device_dispatches drop column sim_slot`);
  await knex.raw(`alter table devices drop column sim_limits`);
}
