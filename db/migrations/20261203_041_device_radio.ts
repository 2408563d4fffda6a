// What the device's agent last said of its radio (the heartbeat's radio: can_send, problem,
// detail), with when it said it. Null until a heartbeat says, and for an agent that never does:
// such a device is handed work as before. A device whose radio says it cannot send is handed no
// new work until a heartbeat says it can again.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table devices add column radio jsonb`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table devices drop column radio`);
}
