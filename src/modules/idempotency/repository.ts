// Stored responses of requests that carried an Idempotency-Key.
import type { Executor } from '../../storage/database.ts';

export interface StoredResponse {
  fingerprint: string;
  status_code: number;
  response: unknown;
}

interface StoredRow extends StoredResponse {
  /** The answer's JSON text as first sent; null on rows a node of the release before wrote. */
  response_text: string | null;
}

const STORED = ['fingerprint', 'status_code', 'response', 'response_text'];

/** The stored answer, parsed from its text (keys in their first order) where there is one. */
function answerOf(row: StoredRow | undefined): StoredResponse | undefined {
  if (!row) return undefined;
  const { response_text: text, ...stored } = row;
  return text === null ? stored : { ...stored, response: JSON.parse(text) };
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
        set fingerprint = excluded.fingerprint, status_code = 0, response = 'null'::jsonb, response_text = null, created_at = excluded.created_at
      where idempotency_keys.created_at < ?
     returning key`,
    [values.accountId, values.key, values.fingerprint, values.now, values.expiredBefore],
  );
  if (rows.length > 0) return undefined;
  const stored: StoredRow | undefined = await trx('idempotency_keys')
    .select(STORED)
    .where({ account_id: values.accountId, key: values.key })
    .first();
  return answerOf(stored);
}

/** The completed response kept for the key, if any and not expired (outside any transaction). */
export async function storedResponse(
  db: Executor,
  values: { accountId: string; key: string; expiredBefore: Date },
): Promise<StoredResponse | undefined> {
  const stored: StoredRow | undefined = await db('idempotency_keys')
    .select(STORED)
    .where({ account_id: values.accountId, key: values.key })
    .where('created_at', '>=', values.expiredBefore)
    .where('status_code', '>', 0)
    .first();
  return answerOf(stored);
}

export async function storeResponse(trx: Executor, accountId: string, key: string, status: number, body: unknown): Promise<void> {
  await trx('idempotency_keys')
    .where({ account_id: accountId, key })
    .update({ status_code: status, ...textAndJson(body) });
}

/** The answer as its text, and as jsonb for a node of the release before. */
function textAndJson(body: unknown): { response: string; response_text: string } {
  const text = JSON.stringify(body ?? null);
  return { response: text, response_text: text };
}

export async function pruneKeys(db: Executor, before: Date): Promise<void> {
  await db.raw(`delete from idempotency_keys where ctid in (select ctid from idempotency_keys where created_at < ? limit 10000)`, [before]);
}
