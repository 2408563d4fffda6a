import { randomUUID } from 'node:crypto';
import type { Cursor } from '../../storage/paging.ts';
import type { Executor } from '../../storage/database.ts';
import { liveDeviceCountColumn } from '../devices/shared-queries.ts';

export interface AccountRow {
  id: string;
  name: string;
  created_at: Date;
  /** Set by the instance administrator: the account's keys and sessions are refused. */
  disabled_at: Date | null;
  /** Attempts a failed send gets on a device whose own max_send_attempts is null (docs/delivery.md). */
  max_send_attempts: number;
}

/** An account as the administrator lists it: with how many users and devices it has. */
export type AccountSummary = AccountRow & { users: number; devices: number };

export async function insertAccount(db: Executor, name: string): Promise<AccountRow> {
  const [row] = await db<AccountRow>('accounts').insert({ id: randomUUID(), name }).returning('*');
  return row!;
}

export async function findAccountByName(db: Executor, name: string): Promise<AccountRow | undefined> {
  return db<AccountRow>('accounts').where({ name }).first();
}

export async function countAccounts(db: Executor): Promise<number> {
  const row = await db('accounts').count<{ count: number }[]>({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

export async function deleteAccount(db: Executor, id: string): Promise<void> {
  await db('accounts').where({ id }).delete();
}

export function findAccountById(db: Executor, id: string): Promise<AccountRow | undefined> {
  return db<AccountRow>('accounts').where({ id }).first();
}

/** The id and name of each of these accounts that exists. */
export function findAccountNames(db: Executor, ids: readonly string[]): Promise<Pick<AccountRow, 'id' | 'name'>[]> {
  return db<AccountRow>('accounts').select('id', 'name').whereIn('id', [...ids]);
}

export async function updateAccount(db: Executor, id: string, changes: { name?: string; disabled_at?: Date | null; max_send_attempts?: number }): Promise<AccountRow | undefined> {
  const [row] = await db<AccountRow>('accounts').where({ id }).update(changes).returning('*');
  return row;
}

/** Every account, oldest first, with its users and its devices (deleted ones not counted). */
/**
 * Accounts as the administrator lists them, newest first, a page at a time (keyset paging: an
 * instance with a hundred thousand accounts costs the same per page); one account with `id`.
 */
export async function listAccountSummaries(db: Executor, options: { id?: string; limit?: number; cursor?: Cursor } = {}): Promise<AccountSummary[]> {
  const query = db('accounts')
    .select(
      'accounts.*',
      db.raw('(select count(*) from users where users.account_id = accounts.id)::int as users'),
      liveDeviceCountColumn(db, 'accounts.id', 'devices'),
    )
    .orderBy([{ column: 'accounts.created_at', order: 'desc' }, { column: 'accounts.id', order: 'desc' }]);
  if (options.id) query.where('accounts.id', options.id);
  if (options.cursor) query.whereRaw('(accounts.created_at, accounts.id) < (?, ?)', [options.cursor.createdAt, options.cursor.id]);
  if (options.limit) query.limit(options.limit + 1);
  return query;
}
