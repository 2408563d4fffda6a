import { randomUUID } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';

export interface AccountRow {
  id: string;
  name: string;
  created_at: Date;
}

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
