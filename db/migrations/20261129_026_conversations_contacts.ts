// Conversations and retention. A conversation is one row per (account, remote number): when it
// last moved, the latest SMS each way, and how many received SMS nobody has read; the inbox lists
// them by last activity through an index per account, never by scanning messages. The thread
// itself is read from the SMS tables, by recipient or sender, through indexes added here.
// Retention: an account may keep message text only so many days, after which the text is
// redacted (the row, its status and times stay for statistics), and optionally the number is kept
// only as a salted hash.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('conversations', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('phone').notNullable();
    t.timestamp('last_activity_at', { useTz: true }).notNullable();
    // The newest SMS each way; plain ids, not references: an SMS deleted on its own leaves the
    // conversation pointing at nothing, which reads as "no message that way".
    t.uuid('last_sms_id');
    t.timestamp('last_sms_at', { useTz: true });
    t.uuid('last_incoming_id');
    t.timestamp('last_incoming_at', { useTz: true });
    t.integer('unread_count').notNullable().defaultTo(0);
    t.timestamp('read_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'phone']);
  });
  await knex.raw(`create index conversations_account_activity on conversations (account_id, last_activity_at desc, id desc)`);
  // A thread reads each direction by number, newest first.
  await knex.raw(`create index sms_account_phone_created on sms (account_id, phone, created_at desc, id desc)`);
  await knex.raw(`create index incoming_sms_account_phone_created on incoming_sms (account_id, phone, created_at desc, id desc)`);

  await knex.schema.createTable('account_retention', (t) => {
    t.uuid('account_id').primary().references('accounts.id').onDelete('CASCADE');
    // null: message text is kept for ever.
    t.integer('keep_text_days');
    t.boolean('hash_recipients').notNullable().defaultTo(false);
    // HMAC-SHA256 key of the account's hashed numbers; never shown.
    t.text('recipient_salt').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table account_retention add constraint account_retention_days_range check (keep_text_days between 1 and 36500)`);
  await knex.raw(`alter table sms add column redacted_at timestamptz`);
  await knex.raw(`alter table incoming_sms add column redacted_at timestamptz`);
  // The sweep finds what is old and not yet redacted without reading what already is.
  await knex.raw(`create index sms_unredacted on sms (account_id, created_at) where redacted_at is null`);
  await knex.raw(`create index incoming_sms_unredacted on incoming_sms (account_id, created_at) where redacted_at is null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index incoming_sms_unredacted');
  await knex.raw('drop index sms_unredacted');
  await knex.raw('alter table incoming_sms drop column redacted_at');
  await knex.raw('alter table sms drop column redacted_at');
  await knex.schema.dropTable('account_retention');
  await knex.raw('drop index incoming_sms_account_phone_created');
  await knex.raw('drop index sms_account_phone_created');
  await knex.schema.dropTable('conversations');
}
