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

export interface DeviceIdentity {
  kind: 'device';
  /** Canonical (lower case). */
  deviceId: string;
  accountId: string;
  /** The row as last read (at CONNECT, then from each heartbeat). */
  device: DeviceRecord;
  /** The hash of the token this connection logged in with: a row naming another has had its token replaced. */
  tokenHash: string;
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
