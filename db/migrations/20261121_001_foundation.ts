// Accounts, API keys, devices, SMS and the SMS status history: the foundation every later
// feature builds on. Every row belongs to an account (tenancy, architecture decision 6).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('name').notNullable().defaultTo('');
    // The visible, non-secret start of the key; it finds the row, the hash proves the key.
    t.text('prefix').notNullable().unique();
    t.text('secret_hash').notNullable();
    t.specificType('permissions', 'text[]').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['account_id']);
  });

  await knex.schema.createTable('devices', (t) => {
    t.uuid('id').primary();
    t.specificType('object_id', 'char(24)').notNullable().unique();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('name_custom');
    t.text('type').notNullable().defaultTo('android');
    t.text('app_version');
    t.boolean('can_send_sms').notNullable().defaultTo(true);
    t.smallint('selected_sim').notNullable().defaultTo(-2);
    t.boolean('notify_low_battery').notNullable().defaultTo(false);
    t.boolean('forward_incoming_sms').notNullable().defaultTo(false);
    t.boolean('record_calls').notNullable().defaultTo(false);
    t.smallint('battery_level');
    t.boolean('is_charging').notNullable().defaultTo(false);
    t.jsonb('sim_cards').notNullable().defaultTo('[]');
    t.text('token_hash').notNullable();
    t.timestamp('last_seen_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Deleted devices keep their row so that SMS history still names them; their token is dead.
    t.timestamp('deleted_at', { useTz: true });
    t.index(['account_id', 'created_at']);
  });
  await knex.raw(`alter table devices add constraint devices_selected_sim_range check (selected_sim between -2 and 2)`);

  await knex.schema.createTable('sms', (t) => {
    t.uuid('id').primary();
    t.specificType('object_id', 'char(24)').notNullable().unique();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.uuid('device_id').references('devices.id');
    // True when the client named the device: then only that device may send it.
    t.boolean('device_named').notNullable().defaultTo(false);
    t.text('phone').notNullable();
    t.text('message').notNullable();
    t.text('status').notNullable();
    // SIM slot asked for at creation (legacy to_sim); null: the device's settings decide.
    t.smallint('sim_slot');
    t.uuid('callback_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table sms add constraint sms_status_known check (status in
    ('pending','processing','sent','delivered','undelivered','failed_send','failed_delivery'))`);
  // Listing is per account, newest first, with id as the tie-breaker for stable pages.
  await knex.raw(`create index sms_account_created on sms (account_id, created_at desc, id desc)`);
  // In-flight counts per device, used to choose the least busy device.
  await knex.raw(`create index sms_device_in_flight on sms (device_id) where status in ('pending','processing')`);
  // SMS waiting for any device of their account.
  await knex.raw(`create index sms_unassigned on sms (account_id, created_at) where device_id is null and status = 'pending'`);

  await knex.schema.createTable('sms_status_history', (t) => {
    t.bigIncrements('id');
    t.uuid('sms_id').notNullable().references('sms.id').onDelete('CASCADE');
    t.text('status').notNullable();
    // Who caused the change: api, device, system.
    t.text('source').notNullable();
    t.text('reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['sms_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sms_status_history');
  await knex.schema.dropTable('sms');
  await knex.schema.dropTable('devices');
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('accounts');
}
