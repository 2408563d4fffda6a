import { randomUUID } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';
import { listWithAccountName } from '../../storage/account-name.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { Permission } from './permissions.ts';

export interface ApiKeyRow {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  secret_hash: string;
  permissions: Permission[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export async function insertApiKey(
  db: Executor,
  values: { accountId: string; name: string; prefix: string; secretHash: string; permissions: Permission[] },
): Promise<ApiKeyRow> {
  const [row] = await db<ApiKeyRow>('api_keys')
    .insert({
      id: randomUUID(),
      account_id: values.accountId,
      name: values.name,
      prefix: values.prefix,
      secret_hash: values.secretHash,
      permissions: values.permissions,
    })
    .returning('*');
  return row!;
}

export async function findApiKeyByPrefix(db: Executor, prefix: string): Promise<ApiKeyRow | undefined> {
  return db<ApiKeyRow>('api_keys').where({ prefix }).first();
}

export async function listApiKeys(db: Executor, accountId?: string): Promise<(ApiKeyRow & { account_name: string })[]> {
  return listWithAccountName<ApiKeyRow>(db, 'api_keys', accountId);
}

/** Revokes by id or prefix; returns the revoked row, or undefined when none matched. */
export async function revokeApiKey(db: Executor, idOrPrefix: string): Promise<ApiKeyRow | undefined> {
  const [row] = await byIdOrPrefix(db, idOrPrefix).whereNull('revoked_at').update({ revoked_at: db.fn.now() as unknown as Date }).returning('*');
  return row;
}

/** A key of any account by its id or its prefix, revoked or not. */
export async function findApiKeyByIdOrPrefix(db: Executor, idOrPrefix: string): Promise<ApiKeyRow | undefined> {
  return byIdOrPrefix(db, idOrPrefix).first();
}

function byIdOrPrefix(db: Executor, idOrPrefix: string) {
  const query = db<ApiKeyRow>('api_keys');
  return /^[0-9a-f-]{36}$/i.test(idOrPrefix) ? query.where({ id: idOrPrefix }) : query.where({ prefix: idOrPrefix });
}

export async function touchApiKey(db: Executor, id: string): Promise<void> {
  await db('api_keys').where({ id }).update({ last_used_at: db.fn.now() });
}

/** One key of an account; another account's key is as absent as a missing one. */
export async function findAccountApiKey(db: Executor, accountId: string, id: string): Promise<ApiKeyRow | undefined> {
  return db<ApiKeyRow>('api_keys').where({ account_id: accountId, id }).first();
}

// created_at comes from now() with microseconds, while a cursor carries a JS Date (milliseconds):
// ordering and comparing on the millisecond keeps a page from skipping a row created in the same
// millisecond as the cursor's.
const CREATED_MS = "date_trunc('milliseconds', created_at)";

/** A page of an account's keys, newest first, one row more than `limit` (see pagination.ts). */
export async function pageApiKeys(
  db: Executor,
  accountId: string,
  options: { limit: number; cursor?: Cursor; revoked?: boolean },
): Promise<ApiKeyRow[]> {
  const query = db<ApiKeyRow>('api_keys')
    .where({ account_id: accountId })
    .orderByRaw(`${CREATED_MS} desc, id desc`)
    .limit(options.limit + 1);
  if (options.cursor) query.whereRaw(`(${CREATED_MS}, id) < (?, ?)`, [options.cursor.createdAt, options.cursor.id]);
  if (options.revoked === true) query.whereNotNull('revoked_at');
  if (options.revoked === false) query.whereNull('revoked_at');
  return query;
}

/** Revokes one key of an account unless it is revoked already; undefined when nothing changed. */
export async function revokeAccountApiKey(db: Executor, accountId: string, id: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db<ApiKeyRow>('api_keys')
    .where({ account_id: accountId, id })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now() as unknown as Date })
    .returning('*');
  return row;
}
