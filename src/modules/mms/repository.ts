// The MMS module's tables: media, mms_messages, mms_parts, incoming_mms, incoming_mms_parts.
import type { Executor } from '../../storage/database.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { IncomingMmsRow, IncomingPartRow, MediaRow, MissingReason, OutgoingMmsRow, OutgoingPartRow } from './types.ts';

export async function insertMedia(db: Executor, row: Omit<MediaRow, 'created_at'>): Promise<MediaRow> {
  const [stored] = await db<MediaRow>('media').insert(row).returning('*');
  return stored!;
}

export async function findMedia(db: Executor, accountId: string, id: string): Promise<MediaRow | undefined> {
  return db<MediaRow>('media').where({ account_id: accountId, id }).first();
}

export async function findMediaMany(db: Executor, accountId: string, ids: string[]): Promise<MediaRow[]> {
  if (ids.length === 0) return [];
  return db<MediaRow>('media').where({ account_id: accountId }).whereIn('id', ids);
}

export async function deleteMedia(db: Executor, id: string): Promise<void> {
  await db('media').where({ id }).delete();
}

/**
 * Deletes up to `limit` media stored before `cutoff`; answers how many. Their files are queued for
 * removal by the database itself, in the same statement (storage/file-removals.ts).
 */
export async function deleteMediaOlderThan(db: Executor, cutoff: Date, limit: number): Promise<number> {
  return db('media')
    .whereIn('id', db('media').select('id').where('created_at', '<', cutoff).orderBy('created_at').limit(limit))
    .delete();
}

export async function insertOutgoing(db: Executor, mms: OutgoingMmsRow, parts: OutgoingPartRow[]): Promise<void> {
  await db('mms_messages').insert({ sms_id: mms.sms_id, subject: mms.subject, recipients: mms.recipients });
  // A text-only MMS (a group text, a subject) has no parts, and knex refuses an empty insert.
  if (parts.length > 0) await db('mms_parts').insert(parts);
}

export async function findOutgoing(db: Executor, smsId: string): Promise<{ mms: OutgoingMmsRow; parts: OutgoingPartRow[] } | undefined> {
  const mms = await db<OutgoingMmsRow>('mms_messages').where({ sms_id: smsId }).first();
  if (!mms) return undefined;
  const parts = await db<OutgoingPartRow>('mms_parts').where({ sms_id: smsId }).orderBy('position');
  return { mms, parts };
}

/** Stores a reported MMS and its parts unless the device reported it before; answers the row, and whether it is new. */
export async function insertIncoming(db: Executor, mms: IncomingMmsRow, parts: IncomingPartRow[]): Promise<IncomingMmsRow | undefined> {
  const [stored] = await db<IncomingMmsRow>('incoming_mms').insert(mms).onConflict(['device_id', 'device_mms_id']).ignore().returning('*');
  if (!stored) return undefined;
  if (parts.length > 0) await db('incoming_mms_parts').insert(parts);
  return stored;
}

export async function findIncomingByDeviceId(db: Executor, deviceId: string, deviceMmsId: string): Promise<IncomingMmsRow | undefined> {
  return db<IncomingMmsRow>('incoming_mms').where({ device_id: deviceId, device_mms_id: deviceMmsId }).first();
}

export async function findIncoming(db: Executor, accountId: string, id: string): Promise<IncomingMmsRow | undefined> {
  return db<IncomingMmsRow>('incoming_mms').where({ account_id: accountId, id }).first();
}

export async function findIncomingMany(db: Executor, accountId: string, ids: string[]): Promise<IncomingMmsRow[]> {
  if (ids.length === 0) return [];
  return db<IncomingMmsRow>('incoming_mms').where({ account_id: accountId }).whereIn('id', ids);
}

/** The row, locked until the transaction ends: part uploads of one MMS complete it one at a time. */
export async function lockIncoming(db: Executor, id: string): Promise<IncomingMmsRow | undefined> {
  return db<IncomingMmsRow>('incoming_mms').where({ id }).forUpdate().first();
}

export async function incomingParts(db: Executor, mmsIds: string[]): Promise<IncomingPartRow[]> {
  if (mmsIds.length === 0) return [];
  return db<IncomingPartRow>('incoming_mms_parts').whereIn('mms_id', mmsIds).orderBy([{ column: 'mms_id' }, { column: 'position' }]);
}

/** Sets a part's media unless it has one (a refusal recorded before is superseded); answers whether this call set it. */
export async function attachPart(db: Executor, mmsId: string, partId: string, mediaId: string): Promise<boolean> {
  const updated = await db('incoming_mms_parts').where({ mms_id: mmsId, part_id: partId }).whereNull('media_id').update({ media_id: mediaId, missing_reason: null });
  return updated > 0;
}

/** Records why a part not uploaded will not come: `partId`, or every part not uploaded yet when null. */
export async function markPartsMissing(db: Executor, mmsId: string, partId: string | null, reason: MissingReason): Promise<void> {
  const query = db('incoming_mms_parts').where({ mms_id: mmsId }).whereNull('media_id');
  if (partId !== null) query.where({ part_id: partId });
  else query.whereNull('missing_reason');
  await query.update({ missing_reason: reason });
}

/** Received MMS still waiting for parts, reported before `cutoff`, oldest first (the sweep's). */
export async function openBefore(db: Executor, cutoff: Date, limit: number): Promise<string[]> {
  const rows: { id: string }[] = await db('incoming_mms').whereNull('completed_at').where('created_at', '<', cutoff).orderBy('created_at').limit(limit).select('id');
  return rows.map((row) => row.id);
}

export async function markCompleted(db: Executor, id: string, at: Date): Promise<IncomingMmsRow> {
  const [row] = await db<IncomingMmsRow>('incoming_mms').where({ id }).update({ completed_at: at }).returning('*');
  return row!;
}

export async function mediaByIds(db: Executor, ids: string[]): Promise<MediaRow[]> {
  if (ids.length === 0) return [];
  return db<MediaRow>('media').whereIn('id', ids);
}

/** Newest first; `phone` (exactly as stored) reads through incoming_mms_account_phone_created. */
export async function listIncoming(db: Executor, accountId: string, filter: { deviceId?: string; phone?: string }, limit: number, cursor?: Cursor): Promise<IncomingMmsRow[]> {
  const query = db<IncomingMmsRow>('incoming_mms')
    .where({ account_id: accountId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (filter.deviceId) query.where({ device_id: filter.deviceId });
  if (filter.phone !== undefined) query.where({ phone: filter.phone });
  if (cursor) query.whereRaw('(created_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return query;
}
