// The ussd_sessions table. Private to the module: others go through UssdService.
import type { Executor } from '../../storage/database.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { UssdExchange, UssdSessionRow, UssdStatus } from './types.ts';

export type { UssdSessionRow };

const OPEN: readonly UssdStatus[] = ['pending', 'waiting_reply'];

/** The error of a session nobody answered in time. */
export const TIMEOUT_ERROR = 'timeout';

export async function insertSession(db: Executor, values: Omit<UssdSessionRow, 'step' | 'message' | 'error' | 'finished_at' | 'updated_at'>): Promise<UssdSessionRow> {
  const [row] = await db('ussd_sessions')
    .insert({ ...values, step: 0, history: JSON.stringify(values.history), updated_at: values.created_at })
    .returning('*');
  return normalize(row);
}

/** The session, only when it belongs to the account: another account's is as absent as none. */
export async function findInAccount(db: Executor, accountId: string, id: string): Promise<UssdSessionRow | undefined> {
  const row = await db('ussd_sessions').where({ account_id: accountId, id }).first();
  return row && normalize(row);
}

/** The device's session, locked for the change that follows (in `trx`). */
export async function lockForDevice(trx: Executor, deviceId: string, id: string): Promise<UssdSessionRow | undefined> {
  const row = await trx('ussd_sessions').where({ device_id: deviceId, id }).forUpdate().first();
  return row && normalize(row);
}

export async function lockInAccount(trx: Executor, accountId: string, id: string): Promise<UssdSessionRow | undefined> {
  const row = await trx('ussd_sessions').where({ account_id: accountId, id }).forUpdate().first();
  return row && normalize(row);
}

/** Newest first; the cursor is the (created_at, id) of the previous page's last row. */
export async function listForDevice(db: Executor, accountId: string, deviceId: string, limit: number, cursor?: Cursor): Promise<UssdSessionRow[]> {
  const query = db('ussd_sessions')
    .where({ account_id: accountId, device_id: deviceId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (cursor) query.whereRaw('(created_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return (await query).map(normalize);
}

export interface SessionChange {
  status: UssdStatus;
  step?: number;
  message?: string | null;
  error?: string | null;
  said?: UssdExchange;
  expiresAt?: Date;
  finishedAt?: Date | null;
  now: Date;
}

/** Writes a change to a session the caller has locked. */
export async function updateSession(trx: Executor, id: string, change: SessionChange): Promise<UssdSessionRow> {
  const values: Record<string, unknown> = { status: change.status, updated_at: change.now };
  if (change.step !== undefined) values.step = change.step;
  if (change.message !== undefined) values.message = change.message;
  if (change.error !== undefined) values.error = change.error;
  if (change.expiresAt !== undefined) values.expires_at = change.expiresAt;
  if (change.finishedAt !== undefined) values.finished_at = change.finishedAt;
  if (change.said) values.history = trx.raw(`history || ?::jsonb`, [JSON.stringify([change.said])]);
  const [row] = await trx('ussd_sessions').where({ id }).update(values).returning('*');
  return normalize(row);
}

/** The earliest deadline of the open sessions, undefined when none is open: one indexed probe, so an idle sweep opens no transaction. */
export async function nextDeadline(db: Executor): Promise<Date | undefined> {
  const row: { expires_at: Date } | undefined = await db('ussd_sessions').whereIn('status', OPEN).orderBy('expires_at').first('expires_at');
  return row ? new Date(row.expires_at) : undefined;
}

/**
 * Ends as failed ("timeout") up to `limit` open sessions whose wait is over at `now`, and returns
 * them. Rows another node is changing (or expiring) right now are skipped, not waited for: each
 * session is ended once, by whichever node reaches it first.
 */
export async function expireDue(trx: Executor, now: Date, limit: number): Promise<UssdSessionRow[]> {
  const rows = await trx('ussd_sessions')
    .whereIn(
      'id',
      trx('ussd_sessions').select('id').whereIn('status', OPEN).where('expires_at', '<=', now).orderBy('expires_at').limit(limit).forUpdate().skipLocked(),
    )
    // Checked again on the locked row: an answer committed meanwhile wins.
    .whereIn('status', OPEN)
    .update({ status: 'failed', error: TIMEOUT_ERROR, finished_at: now, updated_at: now })
    .returning('*');
  return rows.map(normalize);
}

/** Rows as the code reads them, whichever driver returned them (jsonb as text or parsed). */
function normalize(row: Record<string, unknown>): UssdSessionRow {
  const history = typeof row.history === 'string' ? (JSON.parse(row.history) as UssdExchange[]) : (row.history as UssdExchange[]);
  return { ...(row as unknown as UssdSessionRow), history };
}
