import type { Executor } from '../../storage/database.ts';
import { insertReportOnce } from '../../storage/insert-once.ts';
import { redactMessagesBefore } from '../../storage/message-redaction.ts';
import { oldestFirstAfter, type Cursor } from '../../storage/paging.ts';
import type { IncomingSmsRow } from './types.ts';

export type { IncomingSmsRow };

/** Stores a received SMS once: a repeated report of the same device message id is a no-op. */
export async function insertIncoming(
  db: Executor,
  values: Omit<IncomingSmsRow, 'id' | 'created_at'>,
): Promise<IncomingSmsRow | undefined> {
  return insertReportOnce<IncomingSmsRow>(db, 'incoming_sms', values, ['device_id', 'device_message_id']);
}

export async function listIncoming(db: Executor, accountId: string, limit: number, cursor?: Cursor, deviceId?: string, phone?: string): Promise<IncomingSmsRow[]> {
  const query = db<IncomingSmsRow>('incoming_sms')
    .where({ account_id: accountId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (deviceId) query.where({ device_id: deviceId });
  if (phone) query.where({ phone });
  if (cursor) query.whereRaw('(created_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return query;
}

export async function findIncoming(db: Executor, accountId: string, id: string): Promise<IncomingSmsRow | undefined> {
  return db<IncomingSmsRow>('incoming_sms').where({ account_id: accountId, id }).first();
}

export async function findManyIncoming(db: Executor, accountId: string, ids: string[]): Promise<IncomingSmsRow[]> {
  if (ids.length === 0) return [];
  return db<IncomingSmsRow>('incoming_sms').where({ account_id: accountId }).whereIn('id', ids);
}

/** Retention: removes the text of up to `batch` SMS received before `before` (and with `hash`, hashes the sender); answers how many. */
export async function redactBefore(db: Executor, accountId: string, before: Date, at: Date, batch: number, hash?: (phone: string) => string): Promise<number> {
  return redactMessagesBefore(db, 'incoming_sms', { accountId, before, at, batch, hash });
}

/** The account's received SMS oldest first from the (created_at, id) after `cursor` (export). */
export async function pageForExport(db: Executor, accountId: string, limit: number, cursor?: Cursor): Promise<IncomingSmsRow[]> {
  return oldestFirstAfter(db<IncomingSmsRow>('incoming_sms').where({ account_id: accountId }), cursor, limit);
}
