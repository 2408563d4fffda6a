// Retention reaches MMS, and stored files outlive no row.
// - incoming_mms.redacted_at, mms_messages.redacted_at: when the account's retention removed a
//   received MMS's text, subject and (hashed) numbers, or a sent MMS's subject and (hashed)
//   recipients; the sweep finds what is left to do through partial indexes of the rest.
// - media per account and age: the sweep removes an account's media older than it keeps text.
// - file_removals: the files (MMS media, call recordings) whose rows are gone and whose bytes are
//   still to be removed from their store. A row is written by a trigger in the transaction that
//   deletes the media or recording row, whichever way it goes: the media's own retention, the
//   account's retention sweep, a call or phone deleted, or a whole account deleted through the
//   cascades, where no code of ours sees the rows go. So a crash after the commit loses no file:
//   the row stays until the file is removed, and the next sweep retries it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table incoming_mms add column redacted_at timestamptz`);
  await knex.raw(`create index incoming_mms_unredacted on incoming_mms (account_id, created_at) where redacted_at is null`);
  await knex.raw(`alter table mms_messages add column redacted_at timestamptz`);
  await knex.raw(`create index mms_messages_unredacted on mms_messages (sms_id) where redacted_at is null`);
  await knex.raw(`create index media_account_created on media (account_id, created_at)`);

  await knex.raw(`
    create table file_removals (
      id bigserial primary key,
      store text not null check (store in ('media', 'recordings')),
      storage_key text not null,
      queued_at timestamptz not null default now(),
      attempts integer not null default 0
    )`);
  await knex.raw(`create index file_removals_store on file_removals (store, id)`);
  await knex.raw(`
    create function queue_file_removal() returns trigger language plpgsql as $$
    begin
      insert into file_removals (store, storage_key) values (TG_ARGV[0], old.storage_key);
      return null;
    end $$`);
  await knex.raw(`create trigger media_file_removal after delete on media for each row execute function queue_file_removal('media')`);
  await knex.raw(`create trigger call_recording_file_removal after delete on call_recordings for each row execute function queue_file_removal('recordings')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop trigger call_recording_file_removal on call_recordings`);
  await knex.raw(`drop trigger media_file_removal on media`);
  await knex.raw(`drop function queue_file_removal()`);
  await knex.raw(`drop table file_removals`);
  await knex.raw(`drop index media_account_created`);
  await knex.raw(`drop index mms_messages_unredacted`);
  await knex.raw(`alter table mms_messages drop column redacted_at`);
  await knex.raw(`drop index incoming_mms_unredacted`);
  await knex.raw(`alter table incoming_mms drop column redacted_at`);
}
