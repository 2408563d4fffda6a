// What other modules ask of the devices table. The table is this module's (scripts/architecture/
// table-owners.ts): a feature that keeps state on the device row (the circuit breaker's count,
// a pause and its announcement, the pacing clock) or must hold the row while it writes a child
// of it asks here. Each function is one statement run on the caller's executor, inside the
// caller's transaction, or a piece (a join, an exists, a subquery) of the caller's own statement,
// so asking here costs no round trip more than writing it in place did.
import type { Knex } from 'knex';
import type { Executor } from '../../storage/database.ts';
import type { DeviceRow } from './types.ts';

/**
 * Shares the live device row's lock until the caller's transaction ends, so a deletion either
 * committed first (false: write nothing) or waits for this commit and then removes what was
 * written with the rest of the device. Of the account's devices only.
 */
export async function shareLiveDeviceLock(trx: Executor, accountId: string, deviceId: string): Promise<boolean> {
  const live = await trx('devices').where({ id: deviceId, account_id: accountId }).whereNull('deleted_at').forShare().first('id');
  return live !== undefined;
}

/** Locks the live device row for update (a claim's device lock); false when it is deleted or absent. */
export async function lockLiveDevice(db: Executor, deviceId: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>(`select 1 from devices where id = ? and deleted_at is null for update`, [deviceId]);
  return rows.length > 0;
}

/** The account's devices that are not deleted (their ids: presence says which are online). */
export async function liveDeviceIds(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db('devices').where({ account_id: accountId }).whereNull('deleted_at').select('id');
  return rows.map((row: { id: string }) => row.id);
}

/**
 * How many live devices the account in `accountColumn` has, as a column of the caller's query
 * (the administrator's account list counts them per row of its page, in the page's statement).
 */
export function liveDeviceCountColumn(db: Executor, accountColumn: string, as: string): Knex.Raw {
  return db.raw(`(select count(*) from devices where devices.account_id = ?? and devices.deleted_at is null)::int as ??`, [accountColumn, as]);
}

/** The earliest the device is handed its next task (send jitter); null: at once. */
export async function setNextSendAt(db: Executor, deviceId: string, at: number | null): Promise<void> {
  await db.raw(`update devices set next_send_at = ? where id = ?`, [at === null ? null : new Date(at), deviceId]);
}

/**
 * Counts a batch of send outcomes on the device (`reset`: a success came first, count from
 * `failed`; else add `failed` to the count); answers the failures in a row now.
 */
export async function countSendFailures(db: Executor, deviceId: string, reset: boolean, failed: number): Promise<number> {
  if (reset && failed === 0) {
    // The common case, a send that worked on a phone that was not failing: writing the zero again
    // would lock the device row (which the dispatcher's claims wait on) and leave a dead row version
    // for every report batch, to change nothing.
    await db.raw(`update devices set consecutive_failures = 0 where id = ? and consecutive_failures <> 0`, [deviceId]);
    return 0;
  }
  const { rows } = await db.raw<{ rows: { consecutive_failures: number }[] }>(
    `update devices set consecutive_failures = case when ? then ? else consecutive_failures + ? end
      where id = ? returning consecutive_failures`,
    [reset, failed, failed, deviceId],
  );
  return rows[0]?.consecutive_failures ?? 0;
}

/** Starts the failures in a row from nothing again. */
export async function clearSendFailures(db: Executor, deviceId: string): Promise<void> {
  await db.raw(`update devices set consecutive_failures = 0 where id = ?`, [deviceId]);
}

/** Pauses the device until `until`, for `reason`. */
export async function pauseDeviceUntil(db: Executor, deviceId: string, until: Date, reason: string): Promise<void> {
  await db.raw(`update devices set paused_until = ?, paused_reason = ? where id = ?`, [until, reason, deviceId]);
}

/** A device row as a pause announcement reads it. */
export type PauseRow = Pick<DeviceRow, 'id' | 'object_id' | 'account_id' | 'name' | 'name_custom'> & {
  paused_until: Date | null;
  paused_reason: string | null;
  pause_announced_until: Date | null;
  deleted_at: Date | null;
};

const PAUSE_COLUMNS = 'd.id, d.object_id, d.account_id, d.name, d.name_custom, d.paused_until, d.paused_reason, d.deleted_at';

/**
 * Up to `batch` devices paused now whose pause was not announced (a new pause, or one moved to
 * another paused_until while it lasted): marks each announced and answers it. Rows another
 * sweep holds are skipped (FOR UPDATE SKIP LOCKED), so no pause is announced twice.
 */
export async function markStartedPauses(trx: Executor, now: Date, batch: number): Promise<PauseRow[]> {
  const { rows } = await trx.raw<{ rows: PauseRow[] }>(
    `with due as (
       select id from devices
        where paused_until > ? and deleted_at is null and pause_announced_until is distinct from paused_until
        order by id limit ? for update skip locked
     )
     update devices d set pause_announced_until = d.paused_until from due where d.id = due.id
     returning ${PAUSE_COLUMNS}, d.pause_announced_until`,
    [now, batch],
  );
  return rows;
}

/** Up to `batch` devices whose announced pause is over (its time passed, it was lifted, or the device deleted): clears the mark and answers each with the pause it had. */
export async function markEndedPauses(trx: Executor, now: Date, batch: number): Promise<PauseRow[]> {
  const { rows } = await trx.raw<{ rows: PauseRow[] }>(
    `with due as (
       select id, pause_announced_until from devices
        where pause_announced_until is not null and (paused_until is null or paused_until <= ? or deleted_at is not null)
        order by id limit ? for update skip locked
     )
     update devices d set pause_announced_until = null from due where d.id = due.id
     returning ${PAUSE_COLUMNS}, due.pause_announced_until`,
    [now, batch],
  );
  return rows;
}

/**
 * Adds each row's device by public id (`device_object_id`) to a query over rows that hold a
 * device id in `deviceIdColumn`, by a left join in the same statement (an SMS list shows it).
 */
export function withDeviceObjectId(deviceIdColumn: string): (query: Knex.QueryBuilder) => void {
  return (query) => {
    query.leftJoin('devices', 'devices.id', deviceIdColumn).select('devices.object_id as device_object_id');
  };
}

/** Whether the account has a live device able to send the SMS other than `deviceId`: an `exists` for the caller's select list. */
export function otherSendingDeviceExists(db: Executor, accountId: string, deviceId: string, group: Knex.Raw): Knex.Raw {
  // An SMS the routes keep for a device group (`group`, the caller's expression; null: none) may
  // go only to another phone of that group: one outside it could never take it, and the SMS would
  // wait in the pool for no one.
  return db.raw(
    `exists (select 1 from devices d where d.account_id = ? and d.id <> ? and d.deleted_at is null and d.can_send_sms
                and (? is null or d.group_name = ?))`,
    [accountId, deviceId, group, group],
  );
}

/** The SIM slots the device last reported (a subquery with one column, `slot`), for the caller's from clause. */
export function reportedSimSlots(db: Executor, deviceId: string): Knex.Raw {
  return db.raw(`select (card->>'index')::int as slot from devices d cross join lateral jsonb_array_elements(d.sim_cards) card where d.id = ?`, [deviceId]);
}

/**
 * SQL: the device whose id is in `deviceColumn` is in the device group bound as the one `?` (a
 * piece of the caller's statement: the router takes an SMS back from a phone outside the group
 * its rule keeps it for, in the statement that keeps it).
 */
export function deviceInGroup(deviceColumn: string): string {
  return `exists (select 1 from devices g where g.id = ${deviceColumn} and g.group_name = ?::text)`;
}
