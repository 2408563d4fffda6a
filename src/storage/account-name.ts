// Lists an administrator reads across accounts (users, API keys) name each row's account beside it.
import type { Executor } from './database.ts';

/** Every row of `table`, oldest first, with its account's name; of one account when one is given. */
export function listWithAccountName<Row>(db: Executor, table: string, accountId?: string): Promise<(Row & { account_name: string })[]> {
  const query = db(table)
    .join('accounts', 'accounts.id', `${table}.account_id`)
    .select(`${table}.*`, 'accounts.name as account_name')
    .orderBy(`${table}.created_at`);
  if (accountId) query.where(`${table}.account_id`, accountId);
  return query;
}
