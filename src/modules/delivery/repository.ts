// Queries of the delivery loop: Postgres is the queue (DESIGN.md decision 1).
import type { Executor } from '../../storage/database.ts';
import type { SmsRecord } from '../messages/repository.ts';
import type { SmsStatus } from '../messages/status.ts';
import type { SmsSnapshot } from '../messages/status-events.ts';

/** A device's unfinished tasks: not yet acknowledged (pending) or taken but not sent (processing). */
export async function openTasks(db: Executor, deviceId: string, limit: number, after?: { createdAt: Date; id: string }): Promise<SmsRecord[]> {
  const query = db<SmsRecord>('sms')
    .where({ device_id: deviceId })
    .whereIn('status', ['pending', 'processing'])
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .limit(limit);
  if (after) query.whereRaw('(created_at, id) > (?, ?)', [after.createdAt, after.id]);
  return query;
}

/** SMS of the account waiting for any device, oldest first. */
export async function waitingSms(db: Executor, accountId: string, limit: number): Promise<SmsRecord[]> {
  return db<SmsRecord>('sms')
    .where({ account_id: accountId, status: 'pending' })
    .whereNull('device_id')
    .orderBy('created_at')
    .limit(limit);
}

/** Accounts that have SMS waiting for a device. */
export async function accountsWithWaitingSms(db: Executor): Promise<string[]> {
  const rows = await db('sms').distinct('account_id').where({ status: 'pending' }).whereNull('device_id');
  return rows.map((row: { account_id: string }) => row.account_id);
}

/** Assigns waiting SMS to devices; only rows still waiting are taken (another node may be faster). */
export async function assignSms(db: Executor, assignments: { smsId: string; deviceId: string }[]): Promise<SmsRecord[]> {
  if (assignments.length === 0) return [];
  const { rows } = await db.raw<{ rows: SmsRecord[] }>(
    // Not a status change: updated_at (spec 2.2: "time of the last status update") stays.
    `update sms set device_id = v.device_id::uuid
       from (select unnest(?::uuid[]) as sms_id, unnest(?::uuid[]) as device_id) v
      where sms.id = v.sms_id and sms.device_id is null and sms.status = 'pending'
      returning sms.*`,
    [assignments.map((a) => a.smsId), assignments.map((a) => a.deviceId)],
  );
  return rows;
}

export interface LockedSms extends SmsSnapshot {
  status: SmsStatus;
}

/** Locks the SMS rows a batch of reports is about to change; returns what their events need. */
export async function lockSms(db: Executor, ids: string[]): Promise<LockedSms[]> {
  const { rows } = await db.raw<{ rows: LockedSms[] }>(
    `select s.id, s.object_id, s.account_id, s.device_id, s.status, s.phone, s.message, s.callback_id,
            d.object_id as device_object_id
       from sms s left join devices d on d.id = s.device_id
      where s.id = any(?::uuid[])
      order by s.id
        for update of s`,
    [ids],
  );
  return rows;
}

export interface StatusChange {
  smsId: string;
  /** Statuses passed through, in order; the last is the new status. */
  path: SmsStatus[];
  source: 'device' | 'system';
  reason: string | null;
  at: Date;
}

/** Writes a batch of status changes: the new statuses and their history, in one statement. */
export async function writeStatusChanges(db: Executor, changes: StatusChange[]): Promise<void> {
  if (changes.length === 0) return;
  const last = new Map<string, StatusChange>();
  for (const change of changes) last.set(change.smsId, change);
  const finals = [...last.values()];
  const history = changes.flatMap((change) =>
    change.path.map((status, i) => ({
      smsId: change.smsId,
      status,
      source: change.source,
      reason: i < change.path.length - 1 ? 'implied by a later report' : change.reason,
      at: change.at,
    })),
  );
  await db.raw(
    `with updated as (
       update sms set status = v.status, updated_at = v.at
         from (select unnest(?::uuid[]) as id, unnest(?::text[]) as status, unnest(?::timestamptz[]) as at) v
        where sms.id = v.id
        returning sms.id)
     insert into sms_status_history (sms_id, status, source, reason, created_at)
     select * from unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::timestamptz[])`,
    [
      finals.map((c) => c.smsId),
      finals.map((c) => c.path[c.path.length - 1]!),
      finals.map((c) => c.at),
      history.map((h) => h.smsId),
      history.map((h) => h.status),
      history.map((h) => h.source),
      history.map((h) => h.reason),
      history.map((h) => h.at),
    ] as never,
  );
}
