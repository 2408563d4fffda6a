// The legacy GET /sms searches message, phone number and status label, case-insensitively and
// by substring (the legacy search). Trigram GIN indexes keep that fast on a large history; btree_gin
// lets one index serve both the account filter and the text match.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pg_trgm');
  await knex.raw('create extension if not exists btree_gin');
  await knex.raw('create index sms_search_message on sms using gin (account_id, message gin_trgm_ops)');
  await knex.raw('create index sms_search_phone on sms using gin (account_id, phone gin_trgm_ops)');
  await knex.raw('create index sms_account_status_created on sms (account_id, status, created_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index sms_account_status_created');
  await knex.raw('drop index sms_search_phone');
  await knex.raw('drop index sms_search_message');
}
