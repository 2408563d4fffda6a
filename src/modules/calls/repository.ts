import type { Executor } from '../../storage/database.ts';
import { insertReportOnce } from '../../storage/insert-once.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { CallDirection } from './schema.ts';
import type { CallRow, RecordingRow } from './types.ts';

export type { CallRow, RecordingRow };

export interface CallFilter {
  deviceId?: string;
  direction?: CallDirection;
  /** Matched exactly: the caller normalizes it as reports are. */
  phone?: string;
  from?: Date;
  to?: Date;
}

/** Stores a reported call once: a repeated report of the same phone call id is a no-op (undefined). */
export async function insertCall(db: Executor, values: Omit<CallRow, 'id' | 'created_at'>): Promise<CallRow | undefined> {
  return insertReportOnce<CallRow>(db, 'calls', values, ['device_id', 'device_call_id']);
}

export async function findCallByDeviceCallId(db: Executor, deviceId: string, deviceCallId: string): Promise<CallRow | undefined> {
  return db<CallRow>('calls').where({ device_id: deviceId, device_call_id: deviceCallId }).first();
}

/** The call, only when it belongs to the account: another account's call is as absent as none. */
export async function findCallInAccount(db: Executor, accountId: string, id: string): Promise<CallRow | undefined> {
  return db<CallRow>('calls').where({ account_id: accountId, id }).first();
}

/** Newest call first; the cursor is the (started_at, id) of the previous page's last row. */
export async function listCalls(db: Executor, accountId: string, filter: CallFilter, limit: number, cursor?: Cursor): Promise<CallRow[]> {
  const query = db<CallRow>('calls')
    .where({ account_id: accountId })
    .orderBy([{ column: 'started_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (filter.deviceId) query.where({ device_id: filter.deviceId });
  if (filter.direction) query.where({ direction: filter.direction });
  if (filter.phone) query.where({ phone: filter.phone });
  if (filter.from) query.where('started_at', '>=', filter.from);
  if (filter.to) query.where('started_at', '<', filter.to);
  if (cursor) query.whereRaw('(started_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return query;
}

export async function listDeviceCalls(db: Executor, deviceId: string): Promise<CallRow[]> {
  return db<CallRow>('calls').where({ device_id: deviceId });
}

/** Deletes the call; its recording row goes with it (on delete cascade). */
export async function deleteCall(db: Executor, id: string): Promise<boolean> {
  return (await db('calls').where({ id }).delete()) > 0;
}

export async function insertRecording(trx: Executor, row: Omit<RecordingRow, 'created_at'>): Promise<RecordingRow | undefined> {
  const [stored] = await trx<RecordingRow>('call_recordings')
    .insert({ ...row, created_at: new Date() })
    .onConflict('call_id')
    .ignore()
    .returning('*');
  return stored;
}

export async function findRecording(db: Executor, callId: string): Promise<RecordingRow | undefined> {
  return db<RecordingRow>('call_recordings').where({ call_id: callId }).first();
}

/** The recordings of these calls, by call id (one query for a page of calls). */
export async function findRecordings(db: Executor, callIds: readonly string[]): Promise<Map<string, RecordingRow>> {
  if (callIds.length === 0) return new Map();
  const rows = await db<RecordingRow>('call_recordings').whereIn('call_id', callIds);
  return new Map(rows.map((row) => [row.call_id, row]));
}

/**
 * Retention with hashed numbers: replaces the number of up to `batch` of the account's calls
 * started before `before` by its hash (one already hashed is left); answers how many.
 */
export async function hashPhonesBefore(db: Executor, accountId: string, before: Date, batch: number, hash: (phone: string) => string): Promise<number> {
  const rows: { id: string; phone: string }[] = await db('calls')
    .where({ account_id: accountId })
    .where('started_at', '<', before)
    .whereNot('phone', 'like', 'hmac:%')
    .select('id', 'phone')
    .limit(batch);
  if (rows.length === 0) return 0;
  await db.raw(`update calls set phone = v.phone from unnest(?::uuid[], ?::text[]) as v(id, phone) where calls.id = v.id`, [
    rows.map((row) => row.id),
    rows.map((row) => hash(row.phone)),
  ] as never);
  return rows.length;
}
