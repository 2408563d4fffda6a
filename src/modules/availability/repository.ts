// The availability module's one table (device_availability): a row per change of a device
// between online and offline.
import type { Executor } from '../../storage/database.ts';

export interface AvailabilityChange {
  online: boolean;
  at: Date;
}

/** A device going online or offline, as announced. */
export interface AnnouncedChange {
  accountId: string;
  deviceId: string;
  online: boolean;
  at: Date;
}

/**
 * Records that devices went online or offline, many changes in one statement, in the order
 * given. A change is written only when it differs from the device's state before it: the
 * device's change just before it in the list, or for the first of the device's in the list its
 * last recorded row. Another node may announce a phone online again that this one already
 * announced (after a lost sight of each other), and a repeat is no change. Answers how many
 * were written.
 */
export async function recordChanges(db: Executor, changes: AnnouncedChange[]): Promise<number> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `insert into device_availability (account_id, device_id, online, at)
     select change.account_id, change.device_id, change.online, change.at
       from (select given.*, lag(given.online) over (partition by given.device_id order by given.place) as online_before
               from unnest(?::uuid[], ?::uuid[], ?::boolean[], ?::timestamptz[]) with ordinality as given(account_id, device_id, online, at, place)) change
      where change.online is distinct from coalesce(
              change.online_before,
              (select online from device_availability latest where latest.device_id = change.device_id order by latest.at desc, latest.id desc limit 1))
      order by change.place
     returning id`,
    [changes.map((change) => change.accountId), changes.map((change) => change.deviceId), changes.map((change) => change.online), changes.map((change) => change.at.toISOString())],
  );
  return rows.length;
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
