// Webhooks and their deliveries: the transactional outbox (architecture decision 3). An event's
// delivery rows are written in the same transaction as the change they report; dispatchers
// claim due rows with FOR UPDATE SKIP LOCKED.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.specificType('events', 'text[]').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.text('disabled_reason');
    // Signing secrets, encrypted (AES-256-GCM): HMAC signing needs the secret itself.
    t.text('secret_encrypted').notNullable();
    t.text('previous_secret_encrypted');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    t.integer('consecutive_failures').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'created_at']);
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary();
    t.uuid('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    t.uuid('account_id').notNullable();
    t.uuid('event_id').notNullable();
    t.text('event_type').notNullable();
    // The exact bytes sent (and signed) on every attempt.
    t.text('body').notNullable();
    // pending: to be sent (now or at next_attempt_at); delivered; failed: given up.
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('retry_until', { useTz: true }).notNullable();
    t.timestamp('last_attempt_at', { useTz: true });
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table webhook_deliveries add constraint webhook_deliveries_status check (status in ('pending','delivered','failed'))`);
  await knex.raw(`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`);
  await knex.raw(`create index webhook_deliveries_log on webhook_deliveries (webhook_id, created_at desc, id desc)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhooks');
}
