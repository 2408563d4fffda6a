// The radio's signal strength a device reports in its heartbeat, beside its battery level. Null
// until a heartbeat reports one, and whenever the last one did not.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table devices add column signal_percent smallint check (signal_percent between 0 and 100)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table devices drop column signal_percent`);
}
