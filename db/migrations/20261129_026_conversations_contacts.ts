// Conversations, contacts and retention. A conversation is one row per (account, remote number): when it
// last moved, the latest SMS each way, and how many received SMS nobody has read; the inbox lists
// them by last activity through an index per account, never by scanning messages. The thread
// itself is read from the SMS tables, by recipient or sender, through indexes added here.
// Contacts: an account's address book (unique by number), groups of contacts, and message
// templates whose placeholders are filled per contact.
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
  await backfillConversations(knex);

  await knex.schema.createTable('contacts', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('name').notNullable().defaultTo('');
    t.text('phone').notNullable();
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.jsonb('fields').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'phone']);
  });
  await knex.raw(`create index contacts_account_created on contacts (account_id, created_at desc, id desc)`);
  // Sending to a tag finds its contacts through this index.
  await knex.raw(`create index contacts_tags on contacts using gin (tags)`);
  await knex.schema.createTable('contact_groups', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'name']);
  });
  await knex.raw(`create index contact_groups_account_created on contact_groups (account_id, created_at desc, id desc)`);
  await knex.schema.createTable('contact_group_members', (t) => {
    t.uuid('group_id').notNullable().references('contact_groups.id').onDelete('CASCADE');
    t.uuid('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.primary(['group_id', 'contact_id']);
    t.index(['contact_id']);
  });
  await knex.schema.createTable('message_templates', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('text').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'name']);
  });
  await knex.raw(`create index message_templates_account_created on message_templates (account_id, created_at desc, id desc)`);

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

/**
 * The history from before conversations existed gets its conversations: per (account, number),
 * the newest SMS each way. Nothing of it counts as unread. Run again, it adds nothing.
 */
export async function backfillConversations(knex: Knex): Promise<void> {
  await knex.raw(
    `insert into conversations (id, account_id, phone, last_activity_at, last_sms_id, last_sms_at, last_incoming_id, last_incoming_at, unread_count)
     select gen_random_uuid(), account_id, phone, greatest(o.at, i.at), o.id, o.at, i.id, i.at, 0
       from (select distinct on (account_id, phone) account_id, phone, id, created_at as at
               from sms order by account_id, phone, created_at desc, id desc) o
       full join (select distinct on (account_id, phone) account_id, phone, id, created_at as at
                    from incoming_sms order by account_id, phone, created_at desc, id desc) i using (account_id, phone)
     on conflict (account_id, phone) do nothing`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index incoming_sms_unredacted');
  await knex.raw('drop index sms_unredacted');
  await knex.raw('alter table incoming_sms drop column redacted_at');
  await knex.raw('alter table sms drop column redacted_at');
  await knex.schema.dropTable('account_retention');
  await knex.schema.dropTable('message_templates');
  await knex.schema.dropTable('contact_group_members');
  await knex.schema.dropTable('contact_groups');
  await knex.schema.dropTable('contacts');
  await knex.raw('drop index incoming_sms_account_phone_created');
  await knex.raw('drop index sms_account_phone_created');
  await knex.schema.dropTable('conversations');
}
