import { randomUUID } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';
import { listWithAccountName } from '../../storage/account-name.ts';
import { ROLES, type Role, type UserRow } from './types.ts';

export { ROLES, type Role, type UserRow };

export async function insertUser(
  db: Executor,
  values: { accountId: string; email: string; passwordHash: string; role: Role; isAdmin: boolean; mustChangePassword: boolean },
): Promise<UserRow> {
  const [row] = await db<UserRow>('users')
    .insert({
      id: randomUUID(),
      account_id: values.accountId,
      email: values.email,
      password_hash: values.passwordHash,
      role: values.role,
      is_admin: values.isAdmin,
      must_change_password: values.mustChangePassword,
    })
    .returning('*');
  return row!;
}

export function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db<UserRow>('users').where({ email }).first();
}

export function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return db<UserRow>('users').where({ id }).first();
}

export function listUsers(db: Executor, accountId?: string): Promise<(UserRow & { account_name: string })[]> {
  return listWithAccountName<UserRow>(db, 'users', accountId);
}

export async function setPassword(db: Executor, id: string, passwordHash: string, mustChangePassword: boolean): Promise<UserRow | undefined> {
  const [row] = await db<UserRow>('users').where({ id }).update({ password_hash: passwordHash, must_change_password: mustChangePassword }).returning('*');
  return row;
}

export async function recordLogin(db: Executor, id: string, at: Date): Promise<void> {
  await db('users').where({ id }).update({ last_login_at: at });
}

export function findUserInAccount(db: Executor, accountId: string, id: string): Promise<UserRow | undefined> {
  return db<UserRow>('users').where({ account_id: accountId, id }).first();
}

export async function updateUser(db: Executor, id: string, changes: { role?: Role; disabled_at?: Date | null }): Promise<UserRow> {
  const [row] = await db<UserRow>('users').where({ id }).update(changes).returning('*');
  return row!;
}

export async function deleteUser(db: Executor, id: string): Promise<void> {
  await db('users').where({ id }).delete();
}

/**
 * Locks the account's enabled owners until the transaction ends and answers their ids, so two
 * concurrent changes cannot each leave the other's owner as "the last one" and both go through.
 */
export async function lockEnabledOwners(db: Executor, accountId: string): Promise<string[]> {
  // The account row is locked too: an owner added meanwhile would not be among the rows locked.
  await db('accounts').where({ id: accountId }).forUpdate().first();
  const rows = await db<UserRow>('users').where({ account_id: accountId, role: 'owner' }).whereNull('disabled_at').forUpdate().select('id');
  return rows.map((row) => row.id);
}
