// The text the legacy search reads (an SMS's message and phone), in a table of its own.
//
// The trigram indexes of migration 003 were on sms itself: every status change rewrites the SMS
// row (a status in the pool's and the in-flight indexes' predicates rules out a HOT update), and
// each rewrite put new entries in both GIN indexes, four times an SMS on the way to delivered.
// Here the text is written once, when the SMS is stored, and again only when the text or the
// number changes (an SMPP replace_sm, retention's redaction), so status updates touch no trigram
// index.
//
// Triggers keep the table, not the code that writes SMS: every writer (this release, a node of the
// previous release during a rolling upgrade, a bulk fill in SQL) is covered in the same
// transaction, and a status update, which sets none of these columns, fires nothing. Fleet health
// checks (kind 'canary') are in no search, so they are not copied. created_at is copied so that a
// broad search walks this table newest first and reads sms only for the matches.
//
// The SMS already stored are copied under the triggers' lock, which holds SMS writes back until
// the migration commits: on a large history, migrate at a quiet hour. The indexes are built after
// the copy (one sort instead of a row at a time). The trigram indexes on sms stay for the nodes of
// the previous release, whose search still reads them; a later contract step drops them.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table sms_search (
      sms_id uuid primary key,
      account_id uuid not null,
      created_at timestamptz not null,
      message text not null,
      phone text not null
    )`);
  await knex.raw(`
    create function sms_search_on_insert() returns trigger language plpgsql as $$
    begin
      insert into sms_search (sms_id, account_id, created_at, message, phone)
        select id, account_id, created_at, message, phone from inserted where kind <> 'canary';
      return null;
    end $$`);
  await knex.raw(`
    create function sms_search_on_change() returns trigger language plpgsql as $$
    begin
      update sms_search set message = new.message, phone = new.phone, created_at = new.created_at where sms_id = new.id;
      return null;
    end $$`);
  // Deleting an account deletes its SMS, and with them their text here.
  await knex.raw(`
    create function sms_search_on_delete() returns trigger language plpgsql as $$
    begin
      delete from sms_search where sms_id in (select id from deleted);
      return null;
    end $$`);
  await knex.raw(`create trigger sms_searched_on_insert after insert on sms referencing new table as inserted for each statement execute function sms_search_on_insert()`);
  // Only a statement that sets message, phone or created_at fires it, and only for rows it changed.
  await knex.raw(`
    create trigger sms_searched_on_change after update of message, phone, created_at on sms
      for each row when (old.message is distinct from new.message or old.phone is distinct from new.phone
                         or old.created_at is distinct from new.created_at)
      execute function sms_search_on_change()`);
  await knex.raw(`create trigger sms_searched_on_delete after delete on sms referencing old table as deleted for each statement execute function sms_search_on_delete()`);
  await knex.raw(`
    insert into sms_search (sms_id, account_id, created_at, message, phone)
      select id, account_id, created_at, message, phone from sms where kind <> 'canary'`);
  await knex.raw('create extension if not exists pg_trgm');
  await knex.raw('create extension if not exists btree_gin');
  await knex.raw('create index sms_search_text on sms_search using gin (account_id, message gin_trgm_ops)');
  await knex.raw('create index sms_search_number on sms_search using gin (account_id, phone gin_trgm_ops)');
  await knex.raw('create index sms_search_account_created on sms_search (account_id, created_at desc, sms_id desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop trigger sms_searched_on_delete on sms`);
  await knex.raw(`drop trigger sms_searched_on_change on sms`);
  await knex.raw(`drop trigger sms_searched_on_insert on sms`);
  await knex.raw(`drop function sms_search_on_delete()`);
  await knex.raw(`drop function sms_search_on_change()`);
  await knex.raw(`drop function sms_search_on_insert()`);
  await knex.raw(`drop table sms_search`);
}
