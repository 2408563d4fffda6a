// An operator watching phones over MQTT (client id "operator-...", an API key holding
// devices:monitor as password), connected to a node of the test's choosing: what it is sent,
// retained or live, whichever node the phones are connected to.
import { randomBytes } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { TOPIC_PREFIX } from '../../../broker/topics.ts';
import type { Deployment } from './deployment.ts';
import type { GatewayNode } from './node-process.ts';
import { until } from './waits.ts';

export interface Seen {
  deviceId: string;
  /** presence, heartbeat, status... */
  kind: string;
  payload: string;
  retain: boolean;
}

export interface Operator {
  client: MqttClient;
  seen: Seen[];
}

/** Connects an operator to `node` and subscribes it to `kinds` of `deviceId`; ended after the test. */
export async function watch(deployment: Deployment, node: GatewayNode, key: string, deviceId: string, kinds: string[]): Promise<Operator> {
  const client = await mqtt.connectAsync(node.mqttUrl, {
    clientId: `operator-${randomBytes(4).toString('hex')}`,
    username: 'ops',
    password: key,
    protocolVersion: 4,
    reconnectPeriod: 0,
  });
  deployment.afterTest(() => client.endAsync(true));
  const seen: Seen[] = [];
  client.on('message', (topic, payload, packet) => {
    const [id, kind] = topic.slice(TOPIC_PREFIX.length).split('/');
    seen.push({ deviceId: id!, kind: kind!, payload: payload.toString(), retain: packet.retain });
  });
  const granted = await client.subscribeAsync(kinds.map((kind) => `${TOPIC_PREFIX}${deviceId}/${kind}`), { qos: 1 });
  const refused = granted.filter((grant) => grant.qos === 128);
  if (refused.length > 0) throw new Error(`operator subscriptions refused: ${refused.map((grant) => grant.topic).join(', ')}`);
  return { client, seen };
}

/** The retained presence of the phone as an operator connecting to `node` now is sent it; undefined if none within 2 s. */
export async function retainedPresence(deployment: Deployment, node: GatewayNode, key: string, deviceId: string): Promise<string | undefined> {
  const operator = await watch(deployment, node, key, deviceId, ['presence']);
  try {
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline) {
      const retained = operator.seen.find((seen) => seen.kind === 'presence' && seen.retain);
      if (retained) return retained.payload;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return undefined;
  } finally {
    await operator.client.endAsync(true);
  }
}

/** Waits until an operator connecting to `node` is sent `expected` as the phone's retained presence; fails saying what it was sent instead. */
export async function awaitRetainedPresence(deployment: Deployment, node: GatewayNode, key: string, deviceId: string, expected: string, timeoutMs: number, what: string): Promise<void> {
  let read: string | undefined;
  await until(
    `the retained presence "${expected}" ${what}`,
    async () => (read = await retainedPresence(deployment, node, key, deviceId)) === expected,
    timeoutMs,
    () => `last read: ${read ?? 'none'}`,
  );
}
