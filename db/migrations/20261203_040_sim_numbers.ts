// Each SIM's own phone number. The phone says it in its heartbeat when it knows it, inside the
// SIM it reports (sim_cards[].phone_number, kept in the sim_cards column as it comes); the owner
// may set it per SIM slot (PATCH /devices/{id}/settings sim_numbers), kept here apart, so that a
// heartbeat never overwrites it. The owner's number wins over the phone's.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A constant default: the column is added without rewriting the table.
  await knex.raw(`alter table devices add column sim_numbers jsonb not null default '{}'::jsonb`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table devices drop column sim_numbers`);
}
