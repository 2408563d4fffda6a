// MMS, out and in. An outgoing MMS is an sms row of kind 'mms' (so statuses, pacing, failover,
// cancelling, idempotency, webhooks and lists serve it as any SMS); what only an MMS has lives here:
// - media: bytes an account uploaded (POST /media) or a phone received in an MMS; the bytes are in
//   the media store (a directory, or the recordings' S3 bucket), the row is the index. Removed
//   by MEDIA_RETENTION_DAYS like recordings.
// - mms_messages: an outgoing MMS's subject and its recipients (a group MMS is one message to
//   several numbers; the sms row's phone is the first of them).
// - mms_parts: an outgoing MMS's parts, in order. Their type and size are copied from the media
//   row, which retention may remove before the MMS is read again (no foreign key to it).
// - incoming_mms, incoming_mms_parts: what a phone reported receiving, stored once per the phone's
//   own MMS id; each part's media_id is set once the phone uploaded it, completed_at once all are.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('media', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('origin').notNullable();
    t.text('storage_key').notNullable();
    t.text('content_type').notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.text('sha256').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table media add constraint media_origin_known check (origin in ('upload', 'incoming'))`);
  await knex.raw(`create index media_created on media (created_at)`);

  await knex.schema.createTable('mms_messages', (t) => {
    t.uuid('sms_id').primary().references('sms.id').onDelete('CASCADE');
    t.text('subject');
    t.specificType('recipients', 'text[]').notNullable();
  });
  await knex.schema.createTable('mms_parts', (t) => {
    t.uuid('sms_id').notNullable().references('sms.id').onDelete('CASCADE');
    t.smallint('position').notNullable();
    t.uuid('media_id').notNullable();
    t.text('content_type').notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.primary(['sms_id', 'position']);
  });

  await knex.schema.createTable('incoming_mms', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.uuid('device_id').notNullable().references('devices.id').onDelete('CASCADE');
    t.text('device_mms_id').notNullable();
    t.text('phone').notNullable();
    t.specificType('recipients', 'text[]').notNullable().defaultTo('{}');
    t.text('subject');
    t.text('message');
    t.smallint('sim_slot');
    t.timestamp('received_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['device_id', 'device_mms_id']);
  });
  await knex.raw(`create index incoming_mms_account_created on incoming_mms (account_id, created_at desc, id desc)`);
  await knex.schema.createTable('incoming_mms_parts', (t) => {
    t.uuid('mms_id').notNullable().references('incoming_mms.id').onDelete('CASCADE');
    t.text('part_id').notNullable();
    t.smallint('position').notNullable();
    t.text('content_type').notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.uuid('media_id');
    t.primary(['mms_id', 'part_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('incoming_mms_parts');
  await knex.schema.dropTable('incoming_mms');
  await knex.schema.dropTable('mms_parts');
  await knex.schema.dropTable('mms_messages');
  await knex.schema.dropTable('media');
}
