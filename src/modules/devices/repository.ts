import { randomUUID } from 'node:crypto';
import { withRelaxedCommit, type Database, type Executor } from '../../storage/database.ts';
import { newObjectId } from '../../common/object-id.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { QuietHours, SendJitter } from './types.ts';
import type { SimCard, DeviceRow, SimLimit } from './types.ts';
import type { CapabilityNeed, DeviceCapabilities } from './capabilities.ts';
import { storedRadio, type RadioHealth } from './radio.ts';

export type { SimCard, DeviceRow };

export interface DeviceSettings {
  can_send_sms?: boolean;
  selected_sim?: number;
  notify_low_battery?: boolean;
  forward_incoming_sms?: boolean;
  record_calls?: boolean;
  name_custom?: string | null;
  group_name?: string | null;
  send_window?: number;
  limit_per_minute?: number | null;
  limit_per_hour?: number | null;
  limit_per_day?: number | null;
  quiet_hours?: QuietHours | null;
  send_jitter?: SendJitter | null;
  max_send_attempts?: number | null;
  paused_until?: null;
  paused_reason?: null;
  /** The owner's SIM numbers to change, by slot: a number sets it, null clears it; slots left out stay. */
  sim_numbers?: Record<string, string | null>;
  /** The SIM limits to change, by slot: an object replaces the slot's limits, null removes them; slots left out stay. */
  sim_limits?: Record<string, SimLimit | null>;
}

export async function insertDevice(
  db: Executor,
  /** name: the system name until the device reports its own; nameCustom: the name the user chose. */
  values: { accountId: string; name: string; nameCustom?: string | null; tokenHash: string; type?: string },
): Promise<DeviceRow> {
  const now = new Date();
  const [row] = await db<DeviceRow>('devices')
    .insert({
      id: randomUUID(),
      object_id: newObjectId(now.getTime()),
      account_id: values.accountId,
      name: values.name,
      name_custom: values.nameCustom ?? null,
      type: values.type ?? 'android',
      token_hash: values.tokenHash,
      created_at: now,
      updated_at: now,
    })
    .returning('*');
  return row!;
}

/** A live (not deleted) device of the account, by its UUID. */
export async function findDevice(db: Executor, accountId: string, id: string): Promise<DeviceRow | undefined> {
  return db<DeviceRow>('devices').where({ account_id: accountId, id }).whereNull('deleted_at').first();
}

export async function listDevices(db: Executor, accountId: string, limit: number, cursor?: Cursor): Promise<DeviceRow[]> {
  const query = db<DeviceRow>('devices')
    .where({ account_id: accountId })
    .whereNull('deleted_at')
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (cursor) query.whereRaw('(created_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return query;
}

export async function updateDeviceSettings(
  db: Executor,
  accountId: string,
  id: string,
  settings: DeviceSettings,
): Promise<DeviceRow | undefined> {
  const { sim_numbers, sim_limits, ...columns } = settings;
  const [row] = await db<DeviceRow>('devices')
    .where({ account_id: accountId, id })
    .whereNull('deleted_at')
    .update({
      ...columns,
      // Merged into the numbers set before; a null clears its slot.
      ...(sim_numbers !== undefined ? { sim_numbers: db.raw('jsonb_strip_nulls(sim_numbers || ?::jsonb)', [JSON.stringify(sim_numbers)]) as never } : {}),
      // Each slot given replaces that slot's limits; a null removes the slot.
      ...(sim_limits !== undefined ? { sim_limits: db.raw('jsonb_strip_nulls(sim_limits || ?::jsonb)', [JSON.stringify(sim_limits)]) as never } : {}),
      ...(settings.quiet_hours !== undefined ? { quiet_hours: settings.quiet_hours && (JSON.stringify(settings.quiet_hours) as never) } : {}),
      ...(settings.send_jitter !== undefined ? { send_jitter: settings.send_jitter && (JSON.stringify(settings.send_jitter) as never) } : {}),
      updated_at: new Date(),
    })
    .returning('*');
  return row;
}

/** Marks the device deleted; its token stops working at once. */
export async function softDeleteDevice(db: Executor, accountId: string, id: string): Promise<DeviceRow | undefined> {
  const [row] = await db<DeviceRow>('devices')
    .where({ account_id: accountId, id })
    .whereNull('deleted_at')
    .update({ deleted_at: new Date(), updated_at: new Date(), token_hash: '' })
    .returning('*');
  return row;
}

/**
 * Gives the live device a new token hash: the old token stops working for the next CONNECT or
 * upload at once, as both read the row each time.
 */
export async function replaceTokenHash(db: Executor, accountId: string, id: string, tokenHash: string): Promise<DeviceRow | undefined> {
  const [row] = await db<DeviceRow>('devices')
    .where({ account_id: accountId, id })
    .whereNull('deleted_at')
    .update({ token_hash: tokenHash, updated_at: new Date() })
    .returning('*');
  return row;
}

/** A device of the account that was deleted (its row stays, marked), by its UUID. */
export async function findDeletedDevice(db: Executor, accountId: string, id: string): Promise<DeviceRow | undefined> {
  return db<DeviceRow>('devices').where({ account_id: accountId, id }).whereNotNull('deleted_at').first();
}

/** A live device by id alone: the broker authenticates devices before it knows their account. */
export async function findLiveDevice(db: Executor, id: string): Promise<DeviceRow | undefined> {
  return db<DeviceRow>('devices').where({ id }).whereNull('deleted_at').first();
}

/** The live (not deleted) devices among these ids, in one query (connect-lookup.ts). */
export async function findLiveDevices(db: Executor, ids: string[]): Promise<DeviceRow[]> {
  return db<DeviceRow>('devices').whereIn('id', ids).whereNull('deleted_at');
}

/** When each device was last seen, many in one transaction (last-seen.ts). */
export async function recordLastSeen(db: Database, seen: [id: string, at: Date][]): Promise<void> {
  await db.transaction(async (trx) => {
    // The rows are locked in id order first, as a batch of status reports locks them: an update
    // joined to a list takes its rows in whatever order the plan reads them, and two writers
    // taking the same rows in different orders deadlock.
    await trx.raw(`select id from devices where id = any(?::uuid[]) order by id for no key update`, [seen.map(([id]) => id)]);
    // greatest(): a heartbeat may have recorded a later time meanwhile; never move it back.
    await trx.raw(
      `update devices set last_seen_at = greatest(devices.last_seen_at, seen.at)
         from (select unnest(?::uuid[]) as id, unnest(?::timestamptz[]) as at) seen
        where devices.id = seen.id`,
      [seen.map(([id]) => id), seen.map(([, at]) => at.toISOString())],
    );
  });
}

export async function liveDeviceIds(db: Executor, accountId: string): Promise<string[]> {
  return db('devices').where({ account_id: accountId }).whereNull('deleted_at').pluck('id');
}

/** The account's live devices and the group each is in (null: none). */
export async function liveDeviceGroups(db: Executor, accountId: string): Promise<{ id: string; group_name: string | null }[]> {
  return db('devices').where({ account_id: accountId }).whereNull('deleted_at').select('id', 'group_name');
}

export interface HeartbeatValues {
  battery_level: number;
  is_charging: boolean;
  signal_percent?: number | undefined;
  sim_cards: SimCard[];
  type?: string | undefined;
  name?: string | undefined;
  app_version?: string | undefined;
  /** Received SMS the phone keeps while forwarding is off; absent: the phone does not say. */
  incoming_held?: number | undefined;
  /** What it can do; absent: it does not say (an older app), and is taken to do everything. */
  capabilities?: DeviceCapabilities | undefined;
  /** What the agent says of its radio; absent: it does not say, and is taken to send. */
  radio?: RadioHealth | undefined;
}

/** One device's heartbeat, as a batch of them is written. */
export interface HeartbeatToWrite {
  id: string;
  values: HeartbeatValues;
}

/**
 * Records what each device reports about itself, many devices in one transaction (heartbeat-writer.ts);
 * updated_at and last_seen_at follow. Answers the rows written: a deleted device's is not among
 * them. A device's `name` is the system name: the name the user chose (name_custom) is never
 * touched here. One device per heartbeat: the caller sends no device twice in a batch.
 *
 * Its commit does not wait for the WAL flush: a heartbeat lost in a database crash is replaced by
 * the device's next one.
 */
export async function recordHeartbeats(db: Database, heartbeats: HeartbeatToWrite[]): Promise<DeviceRow[]> {
  const now = new Date();
  const rows = heartbeats.map(({ id, values }) => ({
    id,
    battery_level: values.battery_level,
    is_charging: values.is_charging,
    // A reading is a moment's: a heartbeat without one leaves none rather than an old one.
    signal_percent: values.signal_percent ?? null,
    incoming_held: values.incoming_held ?? null,
    // Each heartbeat says it afresh: one without (an app downgraded) is an app that does not say.
    capabilities: values.capabilities ?? null,
    // Said afresh each time too: a heartbeat without it is an agent that does not say.
    radio: values.radio ? storedRadio(values.radio, now) : null,
    sim_cards: values.sim_cards,
    // Kept as they are when the heartbeat leaves them out (or empty).
    type: values.type || null,
    name: values.name || null,
    app_version: values.app_version || null,
  }));
  return withRelaxedCommit(db, async (trx) => {
    // The rows are locked in id order first, as a batch of status reports and the last-seen
    // writes lock them (recordLastSeen): an update joined to a list takes its rows in whatever
    // order the plan reads them, and two writers taking the same rows in different orders
    // deadlock. One row alone has no order to keep.
    if (rows.length > 1) await trx.raw(`select id from devices where id = any(?::uuid[]) order by id for no key update`, [rows.map((row) => row.id)]);
    const { rows: written } = await trx.raw<{ rows: DeviceRow[] }>(
      `update devices set
         battery_level = heartbeat.battery_level,
         is_charging = heartbeat.is_charging,
         signal_percent = heartbeat.signal_percent,
         incoming_held = heartbeat.incoming_held,
         capabilities = heartbeat.capabilities,
         radio = heartbeat.radio,
         sim_cards = heartbeat.sim_cards,
         type = coalesce(heartbeat.type, devices.type),
         name = coalesce(heartbeat.name, devices.name),
         app_version = coalesce(heartbeat.app_version, devices.app_version),
         last_seen_at = ?,
         updated_at = ?
       from json_to_recordset(?::json) as heartbeat(
         id uuid, battery_level smallint, is_charging boolean, signal_percent smallint, incoming_held integer,
         capabilities jsonb, radio jsonb, sim_cards jsonb, type text, name text, app_version text)
       where devices.id = heartbeat.id and devices.deleted_at is null
       returning devices.*`,
      [now, now, JSON.stringify(rows)],
    );
    return written;
  });
}

/** A live device of the account by UUID or legacy object id; with includeDeleted, a deleted one too. */
export async function findDeviceByAnyId(
  db: Executor,
  accountId: string,
  id: { uuid?: string; objectId?: string },
  { includeDeleted = false } = {},
): Promise<DeviceRow | undefined> {
  const query = db<DeviceRow>('devices').where({ account_id: accountId });
  if (!includeDeleted) query.whereNull('deleted_at');
  if (id.uuid) query.where({ id: id.uuid });
  else query.where({ object_id: id.objectId! });
  return query.first();
}

/**
 * Whether every live device of the account said it cannot do it: false when one can, or never
 * said (it is taken to do everything), and for an account with no device yet.
 */
export async function noneCapable(db: Executor, accountId: string, need: CapabilityNeed): Promise<boolean> {
  const live = () => db('devices').where({ account_id: accountId }).whereNull('deleted_at');
  const query = live();
  if (need.kind === 'encrypted') {
    const holds = need.fingerprint === null ? `capabilities->>'passphrase_fingerprint' is not null` : `capabilities->>'passphrase_fingerprint' = ?`;
    query.whereRaw(`(capabilities is null or ${holds})`, need.fingerprint === null ? [] : [need.fingerprint]);
  } else {
    query.whereRaw(`(capabilities is null or (capabilities->>?)::boolean)`, [need.kind]);
  }
  if ((await query.first('id')) !== undefined) return false;
  return (await live().first('id')) !== undefined;
}
