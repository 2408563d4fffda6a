// What an account's retention removes of MMS: the subject and numbers of sent MMS whose sms row
// it redacted, the text, subject and numbers of received MMS, and media older than the account
// keeps text. Each is a batch of one select and one statement, so no run holds many rows locked.
import type { Executor } from '../../../storage/database.ts';
import { queuedSmsIds, redactedSmsIds } from '../../messages/shared-queries.ts';

type Hash = (phone: string) => string;

/**
 * Removes the subject of up to `batch` of the account's sent MMS whose sms row retention has
 * redacted (that row decided it: old enough, out of the queue), and hashes their recipients
 * with `hash`; answers how many.
 */
export async function redactSent(db: Executor, accountId: string, at: Date, batch: number, hash: Hash | undefined): Promise<number> {
  const rows: { sms_id: string; recipients: string[] }[] = await db('mms_messages as m')
    .whereIn('m.sms_id', redactedSmsIds(db, accountId))
    .whereNull('m.redacted_at')
    .select('m.sms_id', 'm.recipients')
    .limit(batch);
  if (rows.length === 0) return 0;
  const changed = rows.map((row) => ({ sms_id: row.sms_id, recipients: hash ? row.recipients.map(hash) : row.recipients }));
  await db.raw(
    `update mms_messages set subject = null, redacted_at = ?, recipients = v.recipients
       from jsonb_to_recordset(?::jsonb) as v(sms_id uuid, recipients text[]) where mms_messages.sms_id = v.sms_id`,
    [at, JSON.stringify(changed)],
  );
  return rows.length;
}

/**
 * Removes the text and subject of up to `batch` of the account's received MMS stored before
 * `before`, and with `hash` replaces the sender and the recipients by their hashes; answers how many.
 */
export async function redactReceived(db: Executor, accountId: string, before: Date, at: Date, batch: number, hash: Hash | undefined): Promise<number> {
  const rows: { id: string; phone: string; recipients: string[] }[] = await db('incoming_mms')
    .where({ account_id: accountId })
    .whereNull('redacted_at')
    .where('created_at', '<', before)
    .select('id', 'phone', 'recipients')
    .limit(batch);
  if (rows.length === 0) return 0;
  const changed = rows.map((row) => ({
    id: row.id,
    phone: hash ? hash(row.phone) : row.phone,
    recipients: hash ? row.recipients.map(hash) : row.recipients,
  }));
  await db.raw(
    `update incoming_mms set message = null, subject = null, redacted_at = ?, phone = v.phone, recipients = v.recipients
       from jsonb_to_recordset(?::jsonb) as v(id uuid, phone text, recipients text[]) where incoming_mms.id = v.id`,
    [at, JSON.stringify(changed)],
  );
  return rows.length;
}

/**
 * Deletes up to `batch` of the account's media (uploads and received parts) stored before
 * `before`, except those an MMS still in the queue is to carry; answers how many. Their files
 * are queued for removal by the deletion itself (file_removals).
 */
export async function deleteMediaBefore(db: Executor, accountId: string, before: Date, batch: number): Promise<number> {
  const stillNeeded = db('mms_parts as p').whereIn('p.sms_id', queuedSmsIds(db, accountId)).select('p.media_id');
  const rows = await db('media')
    .whereIn(
      'id',
      db('media').select('id').where({ account_id: accountId }).where('created_at', '<', before).whereNotIn('id', stillNeeded).orderBy('created_at').limit(batch),
    )
    .delete()
    .returning('id');
  return rows.length;
}
