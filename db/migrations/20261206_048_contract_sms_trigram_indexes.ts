// The trigram indexes of migration 003 on sms, which every status change of an SMS had to
// maintain (four rewrites an SMS, each adding GIN entries): the legacy search reads its text from
// sms_search since 20261205_044, whose triggers write it once per SMS. A node of the release that
// brought 044 never reads these indexes; a node of the release before it searched sms through
// them and refuses to start on a database with this step (its name says contract): upgrade
// through 044's release first.
import type { Knex } from 'knex';

export const contract = {
  expandedIn: '20261205_044_sms_search',
  why: 'every node since 20261205_044 searches the text in sms_search, whose triggers keep it; nothing reads the trigram indexes on sms',
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists sms_search_message');
  await knex.raw('drop index if exists sms_search_phone');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('create index if not exists sms_search_message on sms using gin (account_id, message gin_trgm_ops)');
  await knex.raw('create index if not exists sms_search_phone on sms using gin (account_id, phone gin_trgm_ops)');
}
