import type { Executor } from '../../storage/database.ts';
import { insertReportOnce } from '../../storage/insert-once.ts';
import type { Cursor } from '../../storage/paging.ts';
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
