// The legacy GET /sms answers total_records: counting an account's SMS row by row read all of
// them (180 ms on 1,000,000 rows), so the count is kept as the SMS are written. Triggers keep it
// in the same transaction as the insert or delete, whichever code path writes (the API, SMPP,
// retention, a bulk fill in SQL), so it can never drift from the rows.
// An account's count is spread over slots chosen by the connection: two connections inserting
// SMS of one account at once update different rows instead of waiting for each other's commit.
// The count is the sum of the slots (a slot may go below zero when it deletes what another added).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table sms_counts (
      account_id uuid not null references accounts (id) on delete cascade,
      slot smallint not null,
      sms bigint not null,
      primary key (account_id, slot)
    )`);
  // One row per account and statement: a bulk insert of 1,000 SMS updates one row once.
  await knex.raw(`
    create function count_inserted_sms() returns trigger language plpgsql as $$
    begin
      insert into sms_counts (account_id, slot, sms)
        select account_id, pg_backend_pid() % 16, count(*) from inserted group by account_id order by account_id
        on conflict (account_id, slot) do update set sms = sms_counts.sms + excluded.sms;
      return null;
    end $$`);
  // Deleting an account deletes its SMS and its counts: an account that no longer exists is
  // not counted again (its counts are gone, and inserting one would break the foreign key).
  await knex.raw(`
    create function count_deleted_sms() returns trigger language plpgsql as $$
    begin
      insert into sms_counts (account_id, slot, sms)
        select deleted.account_id, pg_backend_pid() % 16, -count(*) from deleted
         where exists (select 1 from accounts where accounts.id = deleted.account_id)
         group by deleted.account_id order by deleted.account_id
        on conflict (account_id, slot) do update set sms = sms_counts.sms + excluded.sms;
      return null;
    end $$`);
  // The SMS already there are counted while no one can write one.
  await knex.raw(`lock table sms in share mode`);
  await knex.raw(`insert into sms_counts (account_id, slot, sms) select account_id, 0, count(*) from sms group by account_id`);
  await knex.raw(`create trigger sms_counted_on_insert after insert on sms referencing new table as inserted for each statement execute function count_inserted_sms()`);
  await knex.raw(`create trigger sms_counted_on_delete after delete on sms referencing old table as deleted for each statement execute function count_deleted_sms()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop trigger sms_counted_on_delete on sms`);
  await knex.raw(`drop trigger sms_counted_on_insert on sms`);
  await knex.raw(`drop function count_deleted_sms()`);
  await knex.raw(`drop function count_inserted_sms()`);
  await knex.raw(`drop table sms_counts`);
}
