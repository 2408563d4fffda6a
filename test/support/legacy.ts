// Helpers for tests of the legacy API family (README, "Legacy API"): clients on the server root
// with chosen permissions, the exact shapes of the legacy SMS and device objects, and ways to
// drive an SMS through its statuses with a device the test controls.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import type { DeviceRow } from '../../src/modules/devices/repository.ts';
import { PERMISSIONS, type Permission } from '../../src/modules/api-keys/permissions.ts';
import type { SmsStatus } from '../../src/modules/messages/status.ts';
import { SimulatedDevice, type SimulatedDeviceOptions } from '../../src/simulator/device.ts';
import { ApiClient, type Tenant } from './tenant.ts';
import { topic, type RawClient } from './mqtt.ts';

export const PHONE = '+79161234567';
export const OBJECT_ID = /^[0-9a-f]{24}$/;
/** A well-formed object id that names nothing. */
export const UNKNOWN_OBJECT_ID = 'ffffffffffffffffffffffff';
export const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

/** Ids that are neither a 24-hex object id nor a UUID: each must be a 400 invalid_id. */
export const MALFORMED_IDS: readonly string[] = [
  'abc',
  '12345',
  'fffffffffffffffffffffff', // 23 hex digits
  'fffffffffffffffffffffffff', // 25 hex digits
  'gggggggggggggggggggggggg', // 24 characters, not hex
  '00000000-0000-4000-8000-00000000000', // a UUID one digit short
  '00000000-0000-4000-8000-00000000000g', // a UUID with a non-hex digit
  "' or 1=1 --",
];

/** Every member of the legacy SMS object, no more. */
export const LEGACY_SMS_KEYS = ['id', 'message', 'status', 'callback_id', 'device_id', 'phone_number', 'message_status', 'time_create', 'to_sim'] as const;

/** Every member of the legacy device object, no more. */
export const LEGACY_DEVICE_KEYS = [
  'device_id',
  'device_battery_state',
  'device_name',
  'is_active',
  'is_charging',
  'last_online_date',
  'device_name_type',
  'low_battery_alert',
  'to_sim',
  'sim_list',
] as const;

/** The legacy status numbers 0..5 and the label the gateway documents for each. */
export const LEGACY_LABEL: Record<number, string> = { 0: 'waiting', 1: 'processing', 2: 'sent', 3: 'failed', 4: 'delivered', 5: 'undelivered' };

/** The legacy number of every internal status, as README's "Legacy API" maps them. */
export const LEGACY_NUMBER: Record<SmsStatus, number> = {
  pending: 0,
  processing: 1,
  sent: 2,
  failed_send: 3,
  delivered: 4,
  undelivered: 5,
  failed_delivery: 5,
};

/** The reports a device sends to bring a new SMS to `status`. */
export const REPORTS_TO: Record<SmsStatus, string[]> = {
  pending: [],
  processing: ['processing'],
  sent: ['processing', 'sent'],
  failed_send: ['processing', 'failed_send'],
  delivered: ['processing', 'sent', 'delivered'],
  undelivered: ['processing', 'sent', 'undelivered'],
  failed_delivery: ['processing', 'sent', 'failed_delivery'],
};

/** A client on the server root with a new key of the tenant holding only `permissions`. */
export async function legacyKeyWith(gateway: Gateway, tenant: Tenant, permissions: Permission[]): Promise<ApiClient> {
  const { key } = await gateway.services.apiKeys.create(tenant.accountId, permissions);
  return new ApiClient(tenant.root.baseUrl, key);
}

/** Every permission but `missing`. */
export function allBut(missing: Permission): Permission[] {
  return PERMISSIONS.filter((permission) => permission !== missing);
}

/** The body is a legacy SMS object: exactly its keys, each of its type. */
export function expectLegacySms(body: any): void {
  expect(body).to.be.an('object');
  expect(Object.keys(body)).to.have.members([...LEGACY_SMS_KEYS]);
  expect(body.id).to.match(OBJECT_ID);
  expect(body.message).to.be.a('string');
  expect(body.status).to.be.oneOf([0, 1, 2, 3, 4, 5]);
  expect(body.message_status, 'message_status is the label of status').to.equal(LEGACY_LABEL[body.status]);
  expect(body.callback_id).to.be.a('string');
  expect(body.device_id).to.be.a('string');
  if (body.device_id !== '') expect(body.device_id).to.match(OBJECT_ID);
  expect(body.phone_number).to.be.a('string').and.match(/^\+\d{6,15}$/);
  expect(Number.isInteger(body.time_create), 'time_create is an integer').to.equal(true);
  // Unix seconds, not milliseconds: a time of this century.
  expect(body.time_create).to.be.within(1_600_000_000, 4_000_000_000);
  if (body.to_sim !== null) expect(body.to_sim).to.be.oneOf([-2, -1, 0, 1, 2]);
}

/** device_battery_state of a device whose phone has not reported its battery yet. */
export const BATTERY_NOT_REPORTED = -1;
/** last_online_date of a device that has never connected: the Unix epoch. */
export const NEVER_ONLINE = '1970-01-01T00:00:00.000Z';

/** The body is a legacy device object: exactly its keys, each of its type, none null. */
export function expectLegacyDevice(body: any): void {
  expect(body).to.be.an('object');
  expect(Object.keys(body)).to.have.members([...LEGACY_DEVICE_KEYS]);
  expect(body.device_id).to.match(OBJECT_ID);
  expect(body.device_battery_state).to.be.a('number');
  expect(Number.isInteger(body.device_battery_state)).to.equal(true);
  expect(body.device_battery_state, 'a percentage, or -1 until reported').to.be.within(BATTERY_NOT_REPORTED, 100);
  expect(body.device_name).to.be.a('string').and.not.empty;
  expect(body.device_name_type).to.be.a('string').and.not.empty;
  for (const key of ['is_active', 'is_charging', 'low_battery_alert']) expect(body[key], key).to.be.a('boolean');
  expect(body.last_online_date).to.be.a('string');
  expect(new Date(body.last_online_date).toISOString(), 'last_online_date is an ISO 8601 timestamp').to.equal(body.last_online_date);
  expect(body.to_sim).to.be.oneOf([-2, -1, 0, 1, 2]);
  expect(body.sim_list).to.be.an('array');
  for (const sim of body.sim_list) {
    expect(Object.keys(sim)).to.have.members(['slot_index', 'display_name']);
    expect(Number.isInteger(sim.slot_index) && sim.slot_index >= 0).to.equal(true);
    expect(sim.display_name).to.be.a('string');
  }
}

/** POST /sms/send that must succeed; resolves with the new SMS's object id. */
export async function legacySend(tenant: Tenant, fields: Record<string, unknown> = {}): Promise<string> {
  const reply = await tenant.root.post('/sms/send', { message: 'hello', phone_number: PHONE, ...fields });
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  expect(reply.body.id).to.match(OBJECT_ID);
  return reply.body.id as string;
}

/** POST /sms/get that must succeed. */
export async function legacyGet(tenant: Tenant, id: string): Promise<any> {
  const reply = await tenant.root.post('/sms/get', { id });
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  expectLegacySms(reply.body);
  return reply.body;
}

/** The Extended API's SMS objects of the tenant (newest first), all pages. */
export async function extendedSmsList(tenant: Tenant): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | null = null;
  do {
    const reply: { status: number; body: any } = await tenant.api.get(`/sms?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    all.push(...reply.body.data);
    cursor = reply.body.next_cursor;
  } while (cursor);
  return all;
}

/** The UUID of the tenant's only SMS whose message is `message`, found through the Extended list. */
export async function uuidOfMessage(tenant: Tenant, message: string): Promise<string> {
  const matches = (await extendedSmsList(tenant)).filter((sms) => sms.message === message);
  expect(matches, `one SMS with message ${JSON.stringify(message)}`).to.have.length(1);
  return matches[0].id as string;
}

/** The object id of the tenant's only SMS whose message is `message`, found through GET /sms. */
export async function objectIdOfMessage(tenant: Tenant, message: string): Promise<string> {
  const reply = await tenant.root.get('/sms?limit=100');
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  const matches = reply.body.sms_list.filter((sms: { message: string }) => sms.message === message);
  expect(matches, `one SMS with message ${JSON.stringify(message)}`).to.have.length(1);
  return matches[0].id as string;
}

/** A registered device's row (for its object id). */
export async function deviceRow(gateway: Gateway, tenant: Tenant, id: string): Promise<DeviceRow> {
  return gateway.services.devices.get(tenant.accountId, id);
}

/** A SimulatedDevice for an already registered device, not connected yet (attach listeners first). */
export function simulatedFor(gateway: Gateway, device: { id: string }, token: string, options: Partial<SimulatedDeviceOptions> = {}): SimulatedDevice {
  return new SimulatedDevice({
    brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`,
    deviceId: device.id,
    token,
    reconnectPeriodMs: 100,
    ...options,
  });
}

/** Connects a SimulatedDevice for an already registered device; the caller stops it. */
export async function connectSimulated(
  gateway: Gateway,
  device: { id: string },
  token: string,
  options: Partial<SimulatedDeviceOptions> = {},
): Promise<SimulatedDevice> {
  const simulated = simulatedFor(gateway, device, token, options);
  await simulated.connect();
  return simulated;
}

/** Resolves once the simulated device has reported `delivered` for `count` different SMS (committed: QoS 2). */
export function deliveries(simulated: SimulatedDevice, count: number, timeoutMs = 5_000): Promise<string[]> {
  const delivered = new Set<string>();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      simulated.off('report', listener);
      reject(new Error(`only ${delivered.size} of ${count} SMS delivered within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (smsId: string, status: string) => {
      if (status !== 'delivered') return;
      delivered.add(smsId);
      if (delivered.size < count) return;
      clearTimeout(timer);
      simulated.off('report', listener);
      resolve([...delivered]);
    };
    simulated.on('report', listener);
  });
}

/**
 * Resolves once the gateway has recorded a heartbeat of `deviceId`. Simulated devices send
 * heartbeats with QoS 1, which the broker acknowledges before it handles them, so the test
 * waits for the gateway's own signal: the dispatcher learns the device's SIM cards right after
 * the heartbeat is written. Call it before the heartbeat is sent.
 */
export function heartbeatRecorded(gateway: Gateway, deviceId: string, timeoutMs = 5_000): Promise<void> {
  const dispatcher = gateway.services.dispatcher;
  const original = dispatcher.simCardsChanged;
  return new Promise((resolve, reject) => {
    const restore = () => {
      dispatcher.simCardsChanged = original;
    };
    const timer = setTimeout(() => {
      restore();
      reject(new Error(`no heartbeat of ${deviceId} recorded within ${timeoutMs} ms`));
    }, timeoutMs);
    dispatcher.simCardsChanged = function (id, simCards) {
      original.call(this, id, simCards);
      if (id !== deviceId) return;
      clearTimeout(timer);
      restore();
      resolve();
    };
  });
}

/**
 * Sends the reports that bring the SMS (UUID) held by the raw device to `status`. Each report
 * goes with QoS 2, which the gateway acknowledges only once it is committed.
 */
export async function driveTo(raw: RawClient, deviceId: string, smsUuid: string, status: SmsStatus): Promise<void> {
  for (const reported of REPORTS_TO[status]) {
    await raw.publish(topic(deviceId, 'status'), JSON.stringify({ sms_id: smsUuid, status: reported }), { qos: 2 });
  }
}

/** Waits until the clock has moved past the current millisecond, so the next row is strictly newer. */
export async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  while (Date.now() <= now) await new Promise((resolve) => setImmediate(resolve));
}
