// Received SMS are not lost by default, and what a phone keeps is visible:
// - devices.forward_incoming_sms defaults to true for devices registered from now on: replies and
//   STOP opt-outs arrive this way. Only the default changes; a device already registered keeps
//   the setting it has (on or off).
// - devices.incoming_held: how many received SMS the phone keeps while forwarding is off, as its
//   last heartbeat said; null when it never said (an older agent, or no heartbeat yet).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table devices alter column forward_incoming_sms set default true`);
  await knex.raw(`alter table devices add column incoming_held integer`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table devices drop column incoming_held`);
  await knex.raw(`alter table devices alter column forward_incoming_sms set default false`);
}
