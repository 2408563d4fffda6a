// Who is on the other end of an MQTT connection, decided once at CONNECT.
//
// Devices: client id and username are the device id, the password is the device token. A device
// id is a UUID and compares case-insensitively: the identity carries it in lower case (canonical),
// and the connection's MQTT client id is rewritten to it at CONNECT, so that the broker knows
// one client id per device whatever case the device wrote it in. One device, one session: a
// CONNECT for a device with a live connection takes over (the old connection is closed).
// Operators: client id starts with "operator-" (so it can never take over a device's session),
// the password is an API key holding devices:monitor; they may watch their account's devices.
import type { Client } from 'aedes';
import type { DeviceRecord } from './ports.ts';

/**
 * A connected device. Its row (read at CONNECT, then from each heartbeat) is kept as a small frozen
 * record of the fields the connection reads later (connectionRecord), never the whole row: every
 * connected device holds one for as long as it stays connected.
 */
export class DeviceIdentity {
  readonly kind = 'device' as const;
  private record: DeviceRecord;

  constructor(
    /** Canonical (lower case). */
    readonly deviceId: string,
    readonly accountId: string,
    /** The hash of the token this connection logged in with: a row naming another has had its token replaced. */
    readonly tokenHash: string,
    device: DeviceRecord,
  ) {
    this.record = connectionRecord(device, this);
  }

  /** The row as last read (at CONNECT, then from each heartbeat), as connectionRecord keeps it. */
  get device(): DeviceRecord {
    return this.record;
  }

  set device(row: DeviceRecord) {
    this.record = connectionRecord(row, this);
  }
}

/**
 * What a connection keeps of its device's row: the settings it pushes when the device subscribes
 * to them (settingsOf), what delivery takes when the device becomes ready (id, account, SIMs),
 * and the battery level the next heartbeat compares with. The rest of the row (dates, radio,
 * capabilities, SIM numbers and limits, counters: about 1.5 KB a device) is read fresh by whoever
 * needs it, never from here. Strings equal to the identity's own are taken from it, so that the
 * row a heartbeat returns adds no second copy of the ids and the token hash.
 */
export function connectionRecord(row: DeviceRecord, identity: { deviceId: string; accountId: string; tokenHash: string }): DeviceRecord {
  return Object.freeze({
    id: row.id === identity.deviceId ? identity.deviceId : row.id,
    account_id: row.account_id === identity.accountId ? identity.accountId : row.account_id,
    token_hash: row.token_hash === identity.tokenHash ? identity.tokenHash : row.token_hash,
    name: row.name,
    name_custom: row.name_custom,
    can_send_sms: row.can_send_sms,
    selected_sim: row.selected_sim,
    notify_low_battery: row.notify_low_battery,
    forward_incoming_sms: row.forward_incoming_sms,
    record_calls: row.record_calls,
    battery_level: row.battery_level,
    sim_cards: row.sim_cards,
    send_window: row.send_window,
    limit_per_minute: row.limit_per_minute,
    limit_per_hour: row.limit_per_hour,
    limit_per_day: row.limit_per_day,
    quiet_hours: row.quiet_hours,
    send_jitter: row.send_jitter,
    max_send_attempts: row.max_send_attempts,
  });
}

export interface OperatorIdentity {
  kind: 'operator';
  accountId: string;
  keyId: string;
  /** The account's devices; refreshed on every SUBSCRIBE. */
  devices: Set<string>;
}

export type Identity = DeviceIdentity | OperatorIdentity;

export const OPERATOR_CLIENT_PREFIX = 'operator-';

/** The form of a device id the gateway compares, keys and routes on. */
export function canonicalDeviceId(deviceId: string): string {
  return deviceId.toLowerCase();
}

const identities = new WeakMap<Client, Identity>();

export function setIdentity(client: Client, identity: Identity): void {
  identities.set(client, identity);
}

export function identityOf(client: Client | null | undefined): Identity | undefined {
  return client ? identities.get(client) : undefined;
}
