// What other modules ask of the sms table inside their own statements: subqueries of SMS ids, to
// put in a `whereIn`, so a feature with rows keyed by SMS (an MMS's message and parts) selects
// them in one statement, as a join did, without naming this module's table.
import type { Knex } from 'knex';
import type { Executor } from '../../storage/database.ts';

/** The account's SMS whose text retention has removed. */
export function redactedSmsIds(db: Executor, accountId: string): Knex.QueryBuilder {
  return db('sms').select('id').where({ account_id: accountId }).whereNotNull('redacted_at');
}

/** The account's SMS still in the queue (pending or processing): what they carry is still needed. */
export function queuedSmsIds(db: Executor, accountId: string): Knex.QueryBuilder {
  return db('sms').select('id').where({ account_id: accountId }).whereIn('status', ['pending', 'processing']);
}
