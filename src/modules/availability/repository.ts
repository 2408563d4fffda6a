// The availability module's one table (device_availability): a row per change of a device
// between online and offline.
import type { Executor } from '../../storage/database.ts';

export interface AvailabilityChange {
  online: boolean;
  at: Date;
}

/**
 * Records that a device went online or offline, unless its last recorded state is already that
 * one: another node may announce a phone online again that this one already announced (after a
 * lost sight of each other), and a repeat is no change. False when nothing was written.
 */
export async function recordChange(db: Executor, change: { accountId: string; deviceId: string; online: boolean; at: Date }): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `insert into device_availability (account_id, device_id, online, at)
     select ?, ?, ?, ?
     where (select online from device_availability where device_id = ? order by at desc, id desc limit 1) is distinct from ?
     returning id`,
    [change.accountId, change.deviceId, change.online, change.at, change.deviceId, change.online],
  );
  return rows.length > 0;
}

/** The device's changes in [from, to), oldest first, after the last change before `from` (the state it started the range in), if any. */
export async function changesIn(db: Executor, deviceId: string, from: Date, to: Date): Promise<{ before: AvailabilityChange | undefined; changes: AvailabilityChange[] }> {
  const [before, changes] = await Promise.all([
    db<AvailabilityChange>('device_availability').select('online', 'at').where('device_id', deviceId).andWhere('at', '<', from).orderBy([{ column: 'at', order: 'desc' }, { column: 'id', order: 'desc' }]).first(),
    db<AvailabilityChange>('device_availability').select('online', 'at').where('device_id', deviceId).andWhere('at', '>=', from).andWhere('at', '<', to).orderBy([{ column: 'at' }, { column: 'id' }]),
  ]);
  return { before, changes };
}

/**
 * Deletes the changes older than `cutoff` that a later change before `cutoff` replaced: what is
 * kept still says, for every device, which state it was in at the cutoff.
 */
export async function pruneBefore(db: Executor, cutoff: Date): Promise<number> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `delete from device_availability old
     where old.at < ?
       and exists (select 1 from device_availability newer where newer.device_id = old.device_id and newer.at > old.at and newer.at < ?)
     returning old.id`,
    [cutoff, cutoff],
  );
  return rows.length;
}
