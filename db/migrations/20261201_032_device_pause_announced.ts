// A device's pause is announced (device.paused) and so is its end (device.resumed), once each,
// whichever gateway node sees it first: devices.pause_announced_until is the paused_until of the
// pause whose start was announced and whose end was not yet. A pause ends by time (paused_until
// passes) or by PATCH settings {"paused": false}, and nothing runs at either: a sweep finds both.
// - devices_paused: the devices paused now, found by a range on paused_until (a past paused_until
//   stays on the row as the record of the last pause).
// - devices_pause_announced: the devices whose pause was announced and whose end was not yet.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table devices add column pause_announced_until timestamptz`);
  await knex.raw(`create index devices_paused on devices (paused_until) where paused_until is not null and deleted_at is null`);
  await knex.raw(`create index devices_pause_announced on devices (id) where pause_announced_until is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index devices_pause_announced`);
  await knex.raw(`drop index devices_paused`);
  await knex.raw(`alter table devices drop column pause_announced_until`);
}
