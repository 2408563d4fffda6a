// Tombstones of deleted SMS. Deleting an SMS removes its row and its history; this keeps the ids
// alone (no text, no phone, no status), with the account and the time, so that the same account
// deleting the same SMS again (a client retrying after a timeout that hid the first 204) hears the
// success again, while an id the account never had, or another account's, stays a 404.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('deleted_sms', (t) => {
    // The SMS's own ids: a client may delete by either (UUID or legacy object id).
    t.uuid('id').primary();
    t.specificType('object_id', 'char(24)').notNullable().unique();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.timestamp('deleted_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deleted_sms');
}
