// Phones of a multi-node deployment: registered through a node's API (POST /devices, as an
// operator does), and simulated (src/simulator/device.ts) over real MQTT to a node of the test's
// choosing. A phone that moves keeps what it knows of its tasks, as the app does, and connects
// to its new node: the way a load balancer sends a reconnecting phone elsewhere.
import { expect } from 'chai';
import mqtt, { type MqttClient } from 'mqtt';
import { deviceTopic } from '../../../broker/topics.ts';
import type { SendTask } from '../../../src/modules/delivery/task.ts';
import { SimulatedDevice, type SimulatedDeviceOptions } from '../../../src/simulator/device.ts';
import type { ApiClient } from '../../support/tenant.ts';
import type { Deployment } from './deployment.ts';
import type { GatewayNode } from './node-process.ts';

export interface Registered {
  id: string;
  token: string;
  name: string;
}

/** The body of PATCH /devices/{id}/settings that lets a phone take all a test gives it at once. */
export const UNPACED = { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } } as const;

/** Registers a phone through the API and gives it `settings` (by default: no pacing). */
export async function registerPhone(api: ApiClient, name: string, settings: Record<string, unknown> = UNPACED): Promise<Registered> {
  const created = await api.post('/devices', { name });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  const id = created.body.device.id as string;
  const changed = await api.patch(`/devices/${id}/settings`, settings);
  expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
  return { id, token: created.body.credentials.password as string, name };
}

/** A simulated phone connected to `node`, stopped after the test. */
export async function phoneOn(
  deployment: Deployment,
  node: GatewayNode,
  device: Registered,
  options: Partial<SimulatedDeviceOptions> = {},
): Promise<SimulatedDevice> {
  const phone = new SimulatedDevice({ brokerUrl: node.mqttUrl, deviceId: device.id, token: device.token, name: device.name, reconnectPeriodMs: 100, ...options });
  deployment.afterTest(() => phone.kill());
  await phone.connect();
  return phone;
}

/**
 * The phone loses its connection (no DISCONNECT: its network changed) and connects to `node`,
 * keeping its tasks and the reports still to come. Not a report in flight: the simulator loses
 * that with its connection, where the app keeps it; move a phone between two reports.
 */
export async function moveTo(phone: SimulatedDevice, node: GatewayNode): Promise<void> {
  await phone.kill();
  phone.options.brokerUrl = node.mqttUrl;
  await phone.connect();
}

/** GET /devices/{id} on a node: whether it shows the phone online. */
export async function isOnline(api: ApiClient, deviceId: string): Promise<boolean> {
  const reply = await api.get(`/devices/${deviceId}`);
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  return reply.body.is_online as boolean;
}

/** A phone that takes its tasks (MQTT PUBACK) and reports on them only when the test says so; it never reconnects. */
export interface SilentPhone {
  client: MqttClient;
  /** SMS ids of the tasks it received, in order, repeats included. */
  tasks: string[];
  /** Tasks the gateway told it to drop, with the reason. */
  revoked: Map<string, string>;
  /** Reports a status (QoS 2: resolves once the gateway has dealt with it, a revoke sent before). */
  report(smsId: string, status: string): Promise<void>;
}

/** Connects as the app does (persistent session, last will, subscriptions, presence online), then stays silent; ended after the test. */
export async function silentPhoneOn(deployment: Deployment, node: GatewayNode, device: Registered): Promise<SilentPhone> {
  const client = await mqtt.connectAsync(node.mqttUrl, {
    clientId: device.id,
    username: device.id,
    password: device.token,
    protocolVersion: 4,
    clean: false,
    reconnectPeriod: 0,
    will: { topic: deviceTopic(device.id, 'presence'), payload: Buffer.from('offline'), qos: 1, retain: true },
  });
  deployment.afterTest(() => client.endAsync(true));
  const tasks: string[] = [];
  const revoked = new Map<string, string>();
  client.on('message', (topic, payload) => {
    if (topic === deviceTopic(device.id, 'tasks')) tasks.push((JSON.parse(payload.toString()) as SendTask).sms_id);
    if (topic === deviceTopic(device.id, 'revoke')) {
      const { sms_id: smsId, reason } = JSON.parse(payload.toString()) as { sms_id: string; reason: string };
      revoked.set(smsId, reason);
    }
  });
  await client.subscribeAsync({ [deviceTopic(device.id, 'tasks')]: { qos: 1 }, [deviceTopic(device.id, 'revoke')]: { qos: 1 } });
  await client.publishAsync(deviceTopic(device.id, 'presence'), 'online', { qos: 1, retain: true });
  const report = async (smsId: string, status: string) => {
    await client.publishAsync(deviceTopic(device.id, 'status'), JSON.stringify({ sms_id: smsId, status }), { qos: 2 });
  };
  return { client, tasks, revoked, report };
}
