// Scenario 2, dispatch latency: LATENCY_RATE SMS/s (default 500) for LATENCY_SECONDS (default
// 20) through POST /api/ext/v1/sms, simulated phones answering at once. Measures the time from
// sending the POST to the task arriving at the phone, and to the "delivered" webhook arriving at
// a local receiver. Baseline in the same run: the MQTT transport alone, a publish to Mosquitto
// (127.0.0.1:1883) received by a subscriber, at the same rate.
// Targets: POST to task p99 < 10 ms; POST to delivered webhook p99 < 100 ms.
import mqtt from 'mqtt';
import { request } from 'undici';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { Receiver } from '../../test/support/receiver.ts';
import { freshDatabase, liftDeviceLimits, prepareTenant, printTable, ratio, spawnGateway, stats } from './support.ts';

const RATE = Number(process.env.LATENCY_RATE ?? 500);
const SECONDS = Number(process.env.LATENCY_SECONDS ?? 20);
// LATENCY_DEVICES phones (default 4); each takes at most its send_window (50) in flight.
const DEVICES = Number(process.env.LATENCY_DEVICES ?? 4);

export async function dispatchLatency(): Promise<Record<string, string | number>[]> {
  const baseline = await mosquittoLatency();
  const database = await freshDatabase('latency');
  const tenant = await prepareTenant(database.url, DEVICES);
  const receiver = new Receiver();
  await receiver.start();
  const gateway = await spawnGateway(database.url, { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  const phones = tenant.devices.map(
    (device) => new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`, deviceId: device.id, token: device.token }),
  );
  const sentAt = new Map<string, number>();
  const toTask: number[] = [];
  const toWebhook: number[] = [];
  const accepted: number[] = [];
  try {
    // The pacing defaults (5 in flight, 20 a minute) protect a real SIM; lifted here as before them.
    await liftDeviceLimits(`http://127.0.0.1:${gateway.port}`, tenant.key, tenant.devices.map((device) => device.id));
    await Promise.all(phones.map((phone) => phone.connect()));
    for (const phone of phones) {
      phone.on('task', (task) => {
        const started = sentAt.get(task.message);
        if (started !== undefined) toTask.push(performance.now() - started);
      });
    }
    receiver.on('request', (received) => {
      const sms = received.json?.data?.sms;
      const started = sms?.status === 'delivered' ? sentAt.get(sms.message) : undefined;
      if (started !== undefined) toWebhook.push(performance.now() - started);
    });
    const api = `http://127.0.0.1:${gateway.port}/api/ext/v1`;
    const headers = { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' };
    const hook = await request(`${api}/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: receiver.url, events: ['sms.status_changed'] }) });
    if (hook.statusCode !== 201) throw new Error(`webhook not created: ${hook.statusCode} ${await hook.body.text()}`);
    await hook.body.dump();

    const total = RATE * SECONDS;
    await paced(total, RATE, async (i) => {
      const message = `latency ${i}`;
      const started = performance.now();
      sentAt.set(message, started);
      const response = await request(`${api}/sms`, { method: 'POST', headers, body: JSON.stringify({ phone: '+79161234567', message }) });
      await response.body.dump();
      if (response.statusCode === 201) accepted.push(performance.now() - started);
    });
    await receiver.waitFor(total, (received) => received.json?.data?.sms?.status === 'delivered', 30_000).catch(() => undefined);
  } finally {
    await Promise.all(phones.map((phone) => phone.stop()));
    await gateway.stop();
    await receiver.stop();
    await database.drop();
  }
  const row = (name: string, samples: number[], base?: number) => {
    const s = stats(samples);
    return { measure: name, count: s.count, 'p50 ms': s.p50, 'p99 ms': s.p99, 'max ms': s.max, 'p99 ratio to baseline': base === undefined ? '' : ratio(s.p99, base) };
  };
  const base = stats(baseline);
  return [
    row('baseline: MQTT publish -> subscriber via Mosquitto', baseline),
    row('POST -> 201', accepted),
    row('POST -> task at the phone', toTask, base.p99),
    row('POST -> delivered webhook at the receiver', toWebhook, base.p99),
  ];
}

/** Runs `send(i)` for i < total at `rate` per second, without waiting for each to finish. */
export async function paced(total: number, rate: number, send: (i: number) => Promise<void>): Promise<void> {
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(send(i).catch(() => undefined));
  }
  await Promise.all(inFlight);
}

async function mosquittoLatency(): Promise<number[]> {
  const topic = `bench/latency/${process.pid}`;
  const subscriber = await mqtt.connectAsync('mqtt://127.0.0.1:1883', { protocolVersion: 4 });
  const publisher = await mqtt.connectAsync('mqtt://127.0.0.1:1883', { protocolVersion: 4 });
  const samples: number[] = [];
  const sentAt = new Map<string, number>();
  await subscriber.subscribeAsync(topic, { qos: 1 });
  subscriber.on('message', (_topic, payload) => {
    const started = sentAt.get(payload.toString());
    if (started !== undefined) samples.push(performance.now() - started);
  });
  const count = Math.min(RATE * SECONDS, RATE * 5);
  await paced(count, RATE, async (i) => {
    sentAt.set(String(i), performance.now());
    await publisher.publishAsync(topic, String(i), { qos: 1 });
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  await subscriber.endAsync();
  await publisher.endAsync();
  return samples;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(`Dispatch latency at ${RATE} SMS/s for ${SECONDS} s (targets: task p99 < 10 ms, delivered webhook p99 < 100 ms)`, await dispatchLatency());
  // Whatever a killed phone or a stopped child left open, a benchmark ends when it is done.
  process.exit(0);
}
