// The device channel: SMS received by devices (forwarded when forward_incoming_sms is on).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('incoming_sms', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.uuid('device_id').notNullable().references('devices.id');
    // The device's own id for the message: a re-sent report of the same SMS is stored once.
    t.text('device_message_id').notNullable();
    t.text('phone').notNullable();
    t.text('message').notNullable();
    t.smallint('sim_slot');
    t.timestamp('received_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['device_id', 'device_message_id']);
  });
  await knex.raw(`create index incoming_sms_account_created on incoming_sms (account_id, created_at desc, id desc)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('incoming_sms');
}
