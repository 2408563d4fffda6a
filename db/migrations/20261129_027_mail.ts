// Email to SMS: which email address last sent an SMS to a number through the SMTP listener, per
// account, so that the number's reply goes back to it by email. One row per (account, number):
// the latest sender wins.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mail_senders', (t) => {
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('phone').notNullable();
    t.text('sender').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['account_id', 'phone']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mail_senders');
}
