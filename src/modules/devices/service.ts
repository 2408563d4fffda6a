// Devices of an account: registration (credentials for the device channel), reading, and
// settings. Settings changes are announced so the device channel can push them to the phone;
// with several nodes, over Redis too, so that the node holding the phone's connection does.
// What a change means for the device's tasks is delivery's; the use cases that do both are
// src/use-cases/update-device-settings.ts and delete-device.ts.
import type { Static } from '@sinclair/typebox';
import { afterCommit, type Database, type Executor } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import { AppError, invalidField, orNotFound } from '../../common/errors.ts';
import { exceedsCharacters } from '../../common/characters.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { DevicesEvents } from './domain-events.ts';
import { hashSecret, randomToken } from '../../common/secrets.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { DevicePresence } from './presence.ts';
import * as devices from './repository.ts';
import type { DeviceSettingsPatch } from './schema.ts';
import { isValidTimeZone } from '../../common/time-zones.ts';
import { normalizePhone } from '../../common/phone.ts';
import type { CacheInvalidation } from '../../cluster/invalidation.ts';
import { ConnectLookup } from './connect-lookup.ts';
import { LastSeenWriter } from './last-seen.ts';
import { HeartbeatWriter } from './heartbeat-writer.ts';
import { canDo, describeNeed, type CapabilityNeed } from './capabilities.ts';
import type { SimLimit } from './types.ts';

export type SettingsPatch = Static<typeof DeviceSettingsPatch>;
type SimLimitPatch = Partial<Record<keyof SimLimit, number | null>>;

/** Below this battery level a device with notify_low_battery on raises device.battery_low. */
export const LOW_BATTERY_PERCENT = 20;

/**
 * Heartbeat writes at once: two of the pool's connections (ten by default), so that the rest stay
 * free for the SMS. Each takes the heartbeats of up to HEARTBEATS_PER_WRITE devices that waited
 * meanwhile: a fleet reconnecting at once is written a hundred phones to a transaction.
 */
const HEARTBEAT_WRITES_AT_ONCE = 2;
const HEARTBEATS_PER_WRITE = 100;
/** How long a heartbeat waits for others to share its write: a phone hears its acknowledgement (QoS 2) that much later. */
const HEARTBEAT_GATHER_MS = 20;

/** What a heartbeat changed, for the connection that sent it. */
export type HeartbeatOutcome =
  | { recorded: devices.DeviceRow }
  /** The row names a token other than the one the connection logged in with. */
  | { tokenReplaced: true }
  /** A newer heartbeat of the device came before this one was written, and was written in its place: the outcome is that one's. */
  | { superseded: true }
  /** The device is deleted. */
  | undefined;

export class DeviceService {
  /** CONNECT lookups, last-seen and heartbeat writes, many devices per statement (reconnect storms). */
  private readonly connectLookup: ConnectLookup;
  private readonly lastSeen: LastSeenWriter;
  private readonly heartbeats: HeartbeatWriter;

  constructor(
    private readonly db: Database,
    private readonly presence: DevicePresence,
    private readonly events: DomainEvents<DevicesEvents>,
    logger: Logger,
    private readonly invalidation?: CacheInvalidation,
    /** DEFAULT_PHONE_REGION: SIM numbers the owner gives in national form are read in it. */
    private readonly defaultPhoneRegion?: string,
  ) {
    this.connectLookup = new ConnectLookup(db);
    this.lastSeen = new LastSeenWriter(db, logger);
    this.heartbeats = new HeartbeatWriter((batch) => devices.recordHeartbeats(db, batch), {
      atOnce: HEARTBEAT_WRITES_AT_ONCE,
      maxBatch: HEARTBEATS_PER_WRITE,
      delayMs: HEARTBEAT_GATHER_MS,
    });
  }

  /**
   * Registers a device; the token is returned once and only its hash is kept. The name given
   * here is the user's name for it (name_custom), which heartbeats never overwrite; it also
   * stands as the system name until the device's first heartbeat reports its own.
   */
  async register(accountId: string, name: string): Promise<{ device: devices.DeviceRow; token: string }> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || exceedsCharacters(trimmed, 100)) {
      throw invalidField('name', 'name must be 1-100 characters');
    }
    const token = newDeviceToken();
    const device = await devices.insertDevice(this.db, { accountId, name: trimmed, nameCustom: trimmed, tokenHash: hashSecret(token) });
    return { device, token };
  }

  /**
   * Issues a new token for a device whose token is lost (or leaked): only its hash is kept, as at
   * registration. The old token is refused from the next CONNECT on, and a connection made with
   * it is closed now, the way a deleted device's is: here, and on the other nodes through the
   * same "device revoked" message (a node reads the row and finds the device live, so it closes
   * the connection without treating the device as deleted).
   */
  async replaceToken(accountId: string, id: string): Promise<{ device: devices.DeviceRow; token: string }> {
    const token = newDeviceToken();
    const device = await devices.replaceTokenHash(this.db, accountId, id, hashSecret(token));
    if (!device) throw new AppError('device_not_found');
    void this.events.emit('device.token_replaced', device);
    this.invalidation?.publish('device_deleted', device.id);
    return { device, token };
  }

  /** A live device by id whatever its account: for the command line, which acts for every account. */
  async findAnyAccount(id: string): Promise<devices.DeviceRow | undefined> {
    return devices.findLiveDevice(this.db, id.toLowerCase());
  }

  /** `executor`: the database, or a transaction that reads it (the embedded database has one connection). */
  async get(accountId: string, id: string, executor: Executor = this.db): Promise<devices.DeviceRow> {
    // Another account's device is "not found" too: its existence is none of this key's business.
    return orNotFound(devices.findDevice(executor, accountId, id), 'device_not_found');
  }

  /**
   * Refuses at once work no device could do: the device named, when it said it cannot (409
   * device_not_capable); with none named, when every device of the account said it cannot (409
   * no_capable_device). Devices merely offline, or that never said, let it wait for them, and so
   * does an account with no device yet, as a plain SMS waits for its first phone.
   */
  async requireCapable(accountId: string, need: CapabilityNeed, deviceId?: string): Promise<void> {
    if (deviceId !== undefined) {
      const device = await this.get(accountId, deviceId);
      if (canDo(device.capabilities, need)) return;
      const message = `device ${device.id} cannot ${describeNeed(need)}, as its last heartbeat said`;
      throw new AppError('device_not_capable', message, [{ field: 'device_id', message }]);
    }
    if (!(await devices.noneCapable(this.db, accountId, need))) return;
    throw new AppError('no_capable_device', `no device of this account can ${describeNeed(need)}, as their heartbeats said: nothing was queued`);
  }

  async getByAnyId(accountId: string, id: { uuid?: string; objectId?: string }): Promise<devices.DeviceRow> {
    return orNotFound(devices.findDeviceByAnyId(this.db, accountId, id), 'device_not_found');
  }

  list(accountId: string, limit: number, cursor?: Cursor): Promise<devices.DeviceRow[]> {
    return devices.listDevices(this.db, accountId, limit, cursor);
  }

  /** The columns a settings patch changes; throws what the schema cannot check. */
  checkSettings(patch: SettingsPatch): devices.DeviceSettings {
    return toSettings(patch, this.defaultPhoneRegion);
  }

  /** Writes the settings in `trx`; undefined when the account has no such live device. */
  writeSettings(trx: Executor, accountId: string, id: string, changes: devices.DeviceSettings): Promise<devices.DeviceRow | undefined> {
    return devices.updateDeviceSettings(trx, accountId, id, changes);
  }

  /** Once `trx` commits, the device's new settings are announced here and to the other nodes. */
  async settingsChanged(trx: Executor, device: devices.DeviceRow): Promise<void> {
    await this.events.written(trx, 'device.settings_changed', device);
    afterCommit(trx, () => this.invalidation?.publish('device_settings', device.id));
  }

  /** A live device, or one the account deleted before, by UUID or legacy object id. */
  async getIncludingDeleted(accountId: string, id: { uuid?: string; objectId?: string }): Promise<devices.DeviceRow> {
    return orNotFound(devices.findDeviceByAnyId(this.db, accountId, id, { includeDeleted: true }), 'device_not_found');
  }

  /**
   * Marks the device deleted in `trx` (credentials revoked). A device the account deleted before
   * (its row stays, marked deleted) is answered with deletedNow false; undefined for a device
   * that was never the account's.
   */
  async markDeleted(trx: Executor, accountId: string, id: string): Promise<{ device: devices.DeviceRow; deletedNow: boolean } | undefined> {
    const deleted = await devices.softDeleteDevice(trx, accountId, id);
    if (deleted) return { device: deleted, deletedNow: true };
    // Also where a delete running at the same time marked it first: it waited for that one.
    const gone = await devices.findDeletedDevice(trx, accountId, id);
    return gone && { device: gone, deletedNow: false };
  }

  /** Once `trx` commits, the device just deleted is announced: its connection closes here and on the other nodes. */
  deleted(trx: Executor, device: devices.DeviceRow): void {
    afterCommit(trx, () => {
      this.presence.markDisconnected(device.id);
      void this.events.emit('device.deleted', device);
      this.invalidation?.publish('device_deleted', device.id);
    });
  }

  /**
   * Another node changed a device's settings: this node acts as if it had done it (pushes the
   * settings to the phone if it holds its connection, refreshes what the dispatcher knows), from
   * the row as the database has it now, never from the message. A database outage here leaves
   * the cache lifetimes (and the sweep) to catch up, as before Redis.
   */
  async changedElsewhere(id: string): Promise<void> {
    const device = await devices.findLiveDevice(this.db, id).catch(() => undefined);
    if (device) void this.events.emit('device.settings_changed', device);
  }

  /**
   * Another node revoked the device's credentials: it deleted the device, or replaced its token.
   * Which one is read from the row: a deleted device is handled as deleted here too; a live one
   * only loses the connection it made with the old token, if this node holds it.
   */
  async revokedElsewhere(id: string): Promise<void> {
    const device = await this.db<devices.DeviceRow>('devices')
      .where({ id })
      .first()
      .catch(() => undefined);
    if (!device) return;
    if (device.deleted_at === null) {
      void this.events.emit('device.token_replaced', device);
      return;
    }
    this.presence.markDisconnected(device.id);
    void this.events.emit('device.deleted', device);
  }

  // What the device channel reads and writes ---------------------------------------------------

  /**
   * The live device with this id, whatever its account, as its CONNECT is checked: read after the
   * CONNECT arrived (a revoked token is refused at once), many CONNECTs per query in a storm.
   */
  findForConnect(id: string): Promise<devices.DeviceRow | undefined> {
    return this.connectLookup.find(id);
  }

  /** Ids of the account's live devices (what an operator watching MQTT may see). */
  liveIds(accountId: string): Promise<string[]> {
    return devices.liveDeviceIds(this.db, accountId);
  }

  /** The account's live devices, each with its group (null: none). */
  liveGroups(accountId: string): Promise<{ id: string; group_name: string | null }[]> {
    return devices.liveDeviceGroups(this.db, accountId);
  }

  /** The account's live devices that are online now, on this node or another: the phones a change of what settings carry must reach. */
  async online(accountId: string): Promise<devices.DeviceRow[]> {
    const ids = (await devices.liveDeviceIds(this.db, accountId)).filter((id) => this.presence.isOnline(id));
    return ids.length === 0 ? [] : devices.findLiveDevices(this.db, ids);
  }

  /** Whether the device forwards the SMS it receives, as its settings say now. */
  async forwardsIncoming(accountId: string, id: string): Promise<boolean> {
    const device = await devices.findDevice(this.db, accountId, id);
    return device?.forward_incoming_sms ?? false;
  }

  /** The device connected or disconnected now: last_seen_at, written a few milliseconds later with others. */
  seen(id: string): void {
    this.lastSeen.touch(id);
  }

  /** Writes the heartbeats and last-seen times still waiting: the database is about to close. */
  async stop(): Promise<void> {
    await Promise.all([this.heartbeats.drain(), this.lastSeen.close()]);
  }

  /**
   * Records a heartbeat of a connection that logged in with `tokenHash`, with many devices' in one
   * write (heartbeat-writer.ts); raises device.battery_low once, as the level crosses
   * LOW_BATTERY_PERCENT downwards from `batteryBefore` (not on every heartbeat). `batteryBefore`
   * is asked once the heartbeat is written: the level as the connection knows it then, after the
   * device's heartbeats written before this one. A heartbeat lost in a database crash is replaced
   * by the next one: its commit does not wait for the flush.
   */
  async recordHeartbeat(id: string, values: devices.HeartbeatValues, tokenHash: string, batteryBefore: () => number | null): Promise<HeartbeatOutcome> {
    const written = await this.heartbeats.add(id, values);
    if ('superseded' in written) return written;
    const device = written.row;
    if (!device) return undefined;
    if (device.token_hash !== tokenHash) return { tokenReplaced: true };
    const before = batteryBefore();
    const crossed = device.battery_level !== null && device.battery_level < LOW_BATTERY_PERCENT && (before === null || before >= LOW_BATTERY_PERCENT);
    if (crossed && device.notify_low_battery && !device.is_charging) this.events.emit('device.battery_low', device);
    return { recorded: device };
  }

  isOnline(deviceId: string): boolean {
    return this.presence.isOnline(deviceId);
  }
}

/** A device token: 32 random bytes; the prefix tells it apart from an API key (sgw_) in a leak report. */
function newDeviceToken(): string {
  return `sgd_${randomToken(32)}`;
}

/** The columns a settings patch changes; checks what the schema cannot. */
function toSettings(patch: SettingsPatch, defaultPhoneRegion: string | undefined): devices.DeviceSettings {
  const { limits, paused, name_custom, sim_numbers, sim_limits, group, ...rest } = patch;
  if (patch.quiet_hours) {
    if (!isValidTimeZone(patch.quiet_hours.timezone)) {
      throw invalidField('quiet_hours.timezone', `quiet_hours.timezone must be an IANA time zone name such as Europe/Berlin, got "${patch.quiet_hours.timezone}"`);
    }
    if (patch.quiet_hours.from === patch.quiet_hours.to) throw invalidField('quiet_hours.to', 'quiet_hours.from and quiet_hours.to must differ');
  }
  if (patch.send_jitter && patch.send_jitter.min_seconds > patch.send_jitter.max_seconds) {
    throw invalidField('send_jitter.max_seconds', 'send_jitter.max_seconds must be at least send_jitter.min_seconds');
  }
  return {
    ...rest,
    // An empty name_custom resets to the system name, which we store as "no custom name".
    ...(name_custom !== undefined ? { name_custom: name_custom === '' ? null : name_custom } : {}),
    ...(group !== undefined ? { group_name: group } : {}),
    ...(limits?.per_minute !== undefined ? { limit_per_minute: limits.per_minute } : {}),
    ...(limits?.per_hour !== undefined ? { limit_per_hour: limits.per_hour } : {}),
    ...(limits?.per_day !== undefined ? { limit_per_day: limits.per_day } : {}),
    ...(paused === false ? { paused_until: null, paused_reason: null } : {}),
    ...(sim_numbers !== undefined ? { sim_numbers: ownerSimNumbers(sim_numbers, defaultPhoneRegion) } : {}),
    ...(sim_limits !== undefined ? { sim_limits: simLimitChanges(sim_limits) } : {}),
  };
}

/** Each slot's new limits, without the nulls (no limit); a slot left with none is removed. */
function simLimitChanges(patch: Record<string, SimLimitPatch | null | undefined>): Record<string, SimLimit | null> {
  const changes: Record<string, SimLimit | null> = {};
  for (const [slot, limits] of Object.entries(patch)) {
    if (limits === undefined) continue;
    const kept = Object.fromEntries(Object.entries(limits ?? {}).filter(([, value]) => value !== null && value !== undefined)) as SimLimit;
    changes[slot] = Object.keys(kept).length > 0 ? kept : null;
  }
  return changes;
}

/** The owner's SIM numbers in E.164; a number that is none is refused, naming its slot. */
function ownerSimNumbers(numbers: Record<string, string | null | undefined>, defaultPhoneRegion: string | undefined): Record<string, string | null> {
  const changes: Record<string, string | null> = {};
  for (const [slot, raw] of Object.entries(numbers)) {
    if (raw === undefined) continue;
    if (raw === null) {
      changes[slot] = null;
      continue;
    }
    const phone = normalizePhone(raw, defaultPhoneRegion);
    if (!phone) {
      const form = defaultPhoneRegion ? '' : ' in international format, such as +79161234567';
      throw invalidField(`sim_numbers.${slot}`, `sim_numbers.${slot} must be a valid phone number${form}, got "${raw}"`);
    }
    changes[slot] = phone;
  }
  return changes;
}
