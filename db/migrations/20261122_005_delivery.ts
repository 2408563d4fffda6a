// Delivery that respects real phones: SMS are claimed by a device when it has room (pull), not
// assigned at creation; devices carry their pacing settings and circuit-breaker state; every
// task handed to a device is logged so rate limits are counted from the database (any node,
// any restart); and Idempotency-Key responses are kept for replay.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sms', (t) => {
    // Not handed to a device before this time (POST /sms send_at).
    t.timestamp('send_at', { useTz: true });
    // Not taken by a phone by then: ends as failed_send, reason "expired" (valid_until / ttl).
    t.timestamp('expires_at', { useTz: true });
    // -100..100, higher first.
    t.smallint('priority').notNullable().defaultTo(0);
    // When the task was handed to its current device; null while the SMS waits in a queue.
    t.timestamp('dispatched_at', { useTz: true });
    // Why the SMS ended as it did: expired, cancelled, device_deleted, ... or the phone's error.
    t.text('reason');
  });
  await knex.raw(`alter table sms add constraint sms_priority_range check (priority between -100 and 100)`);
  // SMS handed out before this migration were published at once: they count as dispatched.
  await knex.raw(`update sms set dispatched_at = updated_at where device_id is not null and status in ('pending','processing')`);

  await knex.raw(`drop index if exists sms_unassigned`);
  await knex.raw(`drop index if exists sms_device_in_flight`);
  // The pool of an account: SMS for any device, in claim order.
  await knex.raw(`create index sms_pool on sms (account_id, priority desc, created_at, id)
                  where status = 'pending' and dispatched_at is null and device_id is null`);
  // SMS waiting for the device their client named, in claim order.
  await knex.raw(`create index sms_named_waiting on sms (device_id, priority desc, created_at, id)
                  where status = 'pending' and dispatched_at is null and device_id is not null`);
  // A device's tasks in flight: handed out and not yet sent or failed.
  await knex.raw(`create index sms_in_flight on sms (device_id, dispatched_at)
                  where dispatched_at is not null and status in ('pending','processing')`);
  await knex.raw(`create index sms_expiring on sms (expires_at) where status = 'pending' and expires_at is not null`);

  await knex.schema.alterTable('devices', (t) => {
    // Defaults protect a real SIM: Android asks before an app sends more than 30 SMS in 30
    // minutes unless the limit is raised, and carriers block SIMs that send hundreds an hour.
    t.smallint('send_window').notNullable().defaultTo(5);
    t.integer('limit_per_minute').defaultTo(20);
    t.integer('limit_per_hour').defaultTo(300);
    t.integer('limit_per_day').defaultTo(2000);
    // {from: "HH:MM", to: "HH:MM", timezone: IANA name}; null: none.
    t.jsonb('quiet_hours');
    // Circuit breaker: failed sends in a row, and the pause they caused.
    t.integer('consecutive_failures').notNullable().defaultTo(0);
    t.timestamp('paused_until', { useTz: true });
    t.text('paused_reason');
  });
  await knex.raw(`alter table devices add constraint devices_send_window_range check (send_window between 1 and 50)`);

  // One row per task handed to a device: the rate limits count these (a deleted SMS still counts).
  await knex.schema.createTable('device_dispatches', (t) => {
    t.bigIncrements('id');
    t.uuid('device_id').notNullable().references('devices.id').onDelete('CASCADE');
    t.timestamp('dispatched_at', { useTz: true }).notNullable();
    t.index(['device_id', 'dispatched_at']);
  });
  await knex.raw(`create index device_dispatches_age on device_dispatches (dispatched_at)`);

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('key').notNullable();
    // SHA-256 of the operation and its body: the same key with another body is refused.
    t.text('fingerprint').notNullable();
    t.integer('status_code').notNullable();
    t.jsonb('response').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['account_id', 'key']);
  });
  await knex.raw(`create index idempotency_keys_age on idempotency_keys (created_at)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
  await knex.schema.dropTable('device_dispatches');
  await knex.schema.alterTable('devices', (t) => {
    t.dropColumns('send_window', 'limit_per_minute', 'limit_per_hour', 'limit_per_day', 'quiet_hours', 'consecutive_failures', 'paused_until', 'paused_reason');
  });
  await knex.raw(`drop index if exists sms_pool`);
  await knex.raw(`drop index if exists sms_named_waiting`);
  await knex.raw(`drop index if exists sms_in_flight`);
  await knex.raw(`drop index if exists sms_expiring`);
  await knex.schema.alterTable('sms', (t) => {
    t.dropColumns('send_at', 'expires_at', 'priority', 'dispatched_at', 'reason');
  });
  await knex.raw(`create index sms_device_in_flight on sms (device_id) where status in ('pending','processing')`);
  await knex.raw(`create index sms_unassigned on sms (account_id, created_at) where device_id is null and status = 'pending'`);
}
