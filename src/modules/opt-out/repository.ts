import { randomUUID } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';
import { oldestFirstAfter, type Cursor } from '../../storage/paging.ts';
import type { OptOutSettings, SuppressionRow } from './types.ts';

export const DEFAULT_SETTINGS: OptOutSettings = { enabled: true, extra_keywords: [], help_text: null, stop_reply: null, start_reply: null };

export async function readSettings(db: Executor, accountId: string): Promise<OptOutSettings> {
  const row = await db<OptOutSettings & { account_id: string }>('opt_out_settings').where({ account_id: accountId }).first();
  if (!row) return { ...DEFAULT_SETTINGS };
  return { enabled: row.enabled, extra_keywords: row.extra_keywords, help_text: row.help_text, stop_reply: row.stop_reply, start_reply: row.start_reply };
}

export async function writeSettings(db: Executor, accountId: string, settings: OptOutSettings): Promise<void> {
  await db('opt_out_settings')
    .insert({ account_id: accountId, ...settings, updated_at: new Date() })
    .onConflict('account_id')
    .merge();
}

/** Which of `phones` are on the account's list: one query, however many. */
export async function suppressedAmong(db: Executor, accountId: string, phones: string[]): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const rows = await db<SuppressionRow>('suppressions').where({ account_id: accountId }).whereIn('phone', [...new Set(phones)]).select('phone');
  return new Set(rows.map((row) => row.phone));
}

/** Adds the numbers not yet listed; answers the rows added (a number already there stays as it was). */
export async function insertSuppressions(
  db: Executor,
  accountId: string,
  entries: { phone: string; source: SuppressionRow['source']; keyword: string | null }[],
  at: Date,
): Promise<SuppressionRow[]> {
  if (entries.length === 0) return [];
  const rows = entries.map((entry) => ({ id: randomUUID(), account_id: accountId, ...entry, created_at: at }));
  const added: SuppressionRow[] = [];
  // Chunks keep the statement's parameters well under PostgreSQL's limit for large imports.
  for (let start = 0; start < rows.length; start += 1000) {
    added.push(...(await db<SuppressionRow>('suppressions').insert(rows.slice(start, start + 1000)).onConflict(['account_id', 'phone']).ignore().returning('*')));
  }
  return added;
}

export async function deleteSuppression(db: Executor, accountId: string, phone: string): Promise<SuppressionRow | undefined> {
  const [row] = await db<SuppressionRow>('suppressions').where({ account_id: accountId, phone }).delete().returning('*');
  return row;
}

export async function findSuppression(db: Executor, accountId: string, phone: string): Promise<SuppressionRow | undefined> {
  return db<SuppressionRow>('suppressions').where({ account_id: accountId, phone }).first();
}

export async function listSuppressions(db: Executor, accountId: string, limit: number, cursor?: Cursor, phone?: string): Promise<SuppressionRow[]> {
  const query = db<SuppressionRow>('suppressions')
    .where({ account_id: accountId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (phone) query.where('phone', 'like', `%${phone.replace(/[%_\\]/g, '')}%`);
  if (cursor) query.whereRaw('(created_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return query;
}

/** Every listed number of the account, oldest first, a page at a time (for the CSV export). */
export async function suppressionsAfter(db: Executor, accountId: string, after: Cursor | undefined, limit: number): Promise<SuppressionRow[]> {
  return oldestFirstAfter(db<SuppressionRow>('suppressions').where({ account_id: accountId }), after, limit);
}

/** The account's listed numbers, newest first, at most `limit` (what its phones are given). */
export async function newestSuppressedPhones(db: Executor, accountId: string, limit: number): Promise<string[]> {
  return db<SuppressionRow>('suppressions')
    .where({ account_id: accountId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit)
    .pluck('phone');
}
