// Stored responses of requests that carried an Idempotency-Key.
import type { Executor } from '../../storage/database.ts';

export interface StoredResponse {
  fingerprint: string;
  status_code: number;
  response: unknown;
}

/**
 * Claims the key for this request, in the caller's transaction. A concurrent request holding
 * the same key makes this statement wait until that request's transaction ends (the unique
 * index does the waiting); then the key is taken and its stored response is returned. A key
 * older than `expiredBefore` is taken over as if it were new.
 */
export async function claimKey(
  trx: Executor,
  values: { accountId: string; key: string; fingerprint: string; now: Date; expiredBefore: Date },
): Promise<StoredResponse | undefined> {
  const { rows } = await trx.raw<{ rows: unknown[] }>(
    `insert into idempotency_keys (account_id, key, fingerprint, status_code, response, created_at)
     values (?, ?, ?, 0, 'null'::jsonb, ?)
     on conflict (account_id, key) do update
        set fingerprint = excluded.fingerprint, status_code = 0, response = 'null'::jsonb, created_at = excluded.created_at
      where idempotency_keys.created_at < ?
     returning key`,
    [values.accountId, values.key, values.fingerprint, values.now, values.expiredBefore],
  );
  if (rows.length > 0) return undefined;
  const stored: StoredResponse | undefined = await trx('idempotency_keys')
    .select('fingerprint', 'status_code', 'response')
    .where({ account_id: values.accountId, key: values.key })
    .first();
  return stored;
}

/** The completed response kept for the key, if any and not expired (outside any transaction). */
export async function storedResponse(
  db: Executor,
  values: { accountId: string; key: string; expiredBefore: Date },
): Promise<StoredResponse | undefined> {
  const stored: StoredResponse | undefined = await db('idempotency_keys')
    .select('fingerprint', 'status_code', 'response')
    .where({ account_id: values.accountId, key: values.key })
    .where('created_at', '>=', values.expiredBefore)
    .where('status_code', '>', 0)
    .first();
  return stored;
}

export async function storeResponse(trx: Executor, accountId: string, key: string, status: number, body: unknown): Promise<void> {
  await trx('idempotency_keys')
    .where({ account_id: accountId, key })
    .update({ status_code: status, response: JSON.stringify(body ?? null) });
}

export async function pruneKeys(db: Executor, before: Date): Promise<void> {
  await db.raw(`delete from idempotency_keys where ctid in (select ctid from idempotency_keys where created_at < ? limit 10000)`, [before]);
}
