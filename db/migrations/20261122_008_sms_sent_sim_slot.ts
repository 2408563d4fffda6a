// The SIM slot a phone says it sent an SMS from (its status report's sim_slot). The legacy
// to_sim shows the slot that actually sent (the legacy SMS object's field); sim_slot keeps what the client asked for,
// which is all that is known until the phone reports, and all there is when it never does.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms add column sent_sim_slot smallint`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms drop column sent_sim_slot`);
}
