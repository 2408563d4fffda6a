// Dispatch latency across nodes: the time from sending POST /api/ext/v1/sms on one
// node to the task arriving at a phone connected to another node, against the single-node path
// (POST and phone on one node without Redis), in the same run, on the same database and phones.
//
// CLUSTER_LATENCY_COUNT SMS (default 500; `--count N` too) are sent one at a time, each waiting for
// its task, after CLUSTER_LATENCY_WARMUP (20) unmeasured ones; then CLUSTER_LATENCY_BATCH SMS
// (default 200; `--batch N`) are posted all at once. CLUSTER_LATENCY_PHONES phones (default 4, send
// window 50, no rate limits) report every task at once, so that a window never fills.
// Configurations: one node; then two nodes on one PostgreSQL and Redis, the phones on node A, the
// SMS posted on node A (same node) and on node B (across nodes). Across nodes, node B wakes node A
// over Redis; without that wake-up the task waits for node A's sweep (every second).
//
// Each SMS waits at most CLUSTER_LATENCY_TASK_LIMIT_S (5) for its task (a miss is counted, not
// timed); each series stops sending after CLUSTER_LATENCY_SERIES_LIMIT_S (100), so that the whole
// run stays within what `npm run bench` allows it even when every task waits for a sweep.
import { request } from 'undici';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { freshDatabase, liftDeviceLimits, prepareTenant, printTable, ratio, stats } from './support.ts';
import { benchRedisPrefix, dropRedisKeys, flag, spawnNode, type GatewayNode } from './cluster-fleet.ts';

const COUNT = Number(flag('count') ?? process.env.CLUSTER_LATENCY_COUNT ?? 500);
const BATCH = Number(flag('batch') ?? process.env.CLUSTER_LATENCY_BATCH ?? 200);
const WARMUP = Number(process.env.CLUSTER_LATENCY_WARMUP ?? 20);
const PHONES = Number(process.env.CLUSTER_LATENCY_PHONES ?? 4);
const TASK_LIMIT_MS = Number(process.env.CLUSTER_LATENCY_TASK_LIMIT_S ?? 5) * 1000;
const SERIES_LIMIT_MS = Number(process.env.CLUSTER_LATENCY_SERIES_LIMIT_S ?? 100) * 1000;
const RECIPIENT = '+79161234567';

interface Series {
  name: string;
  /** POST sent -> task at a phone, ms, for the SMS whose task arrived. */
  toTask: number[];
  /** POST sent -> 201, ms. */
  accepted: number[];
  sent: number;
  missed: number;
}

/** Resolves, for a message text, the moment its task reached any of the phones. */
class TaskArrivals {
  private readonly waiting = new Map<string, (at: number) => void>();

  constructor(phones: SimulatedDevice[]) {
    for (const phone of phones) {
      phone.on('task', (task) => {
        const arrived = this.waiting.get(task.message);
        if (arrived) {
          this.waiting.delete(task.message);
          arrived(performance.now());
        }
      });
    }
  }

  /** When the task of `message` arrives, or undefined after TASK_LIMIT_MS. Call before the POST. */
  expect(message: string): Promise<number | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(message);
        resolve(undefined);
      }, TASK_LIMIT_MS);
      this.waiting.set(message, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }
}

/** POSTs one SMS to `node`; resolves with the ms to the task at a phone (undefined: missed) and to the 201. */
async function sendOne(node: GatewayNode, key: string, arrivals: TaskArrivals, message: string): Promise<{ toTask?: number; accepted?: number }> {
  const arrived = arrivals.expect(message);
  const started = performance.now();
  const response = await request(`http://127.0.0.1:${node.port}/api/ext/v1/sms`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ phone: RECIPIENT, message }),
  });
  await response.body.dump();
  const accepted = performance.now() - started;
  if (response.statusCode !== 201) throw new Error(`POST /sms on ${node.nodeId} answered ${response.statusCode}`);
  const at = await arrived;
  return { toTask: at === undefined ? undefined : at - started, accepted };
}

/** WARMUP unmeasured SMS, then COUNT one after the other, each waiting for its task. */
async function sequential(name: string, node: GatewayNode, key: string, arrivals: TaskArrivals): Promise<Series> {
  const series: Series = { name, toTask: [], accepted: [], sent: 0, missed: 0 };
  for (let i = 0; i < WARMUP; i++) await sendOne(node, key, arrivals, `${name} warm-up ${i}`);
  const deadline = performance.now() + SERIES_LIMIT_MS;
  for (let i = 0; i < COUNT && performance.now() < deadline; i++) {
    const { toTask, accepted } = await sendOne(node, key, arrivals, `${name} ${i}`);
    series.sent++;
    if (accepted !== undefined) series.accepted.push(accepted);
    if (toTask === undefined) series.missed++;
    else series.toTask.push(toTask);
  }
  return series;
}

/** BATCH SMS posted all at once. */
async function batch(name: string, node: GatewayNode, key: string, arrivals: TaskArrivals): Promise<Series> {
  const series: Series = { name, toTask: [], accepted: [], sent: BATCH, missed: 0 };
  const results = await Promise.all(Array.from({ length: BATCH }, (_, i) => sendOne(node, key, arrivals, `${name} ${i}`)));
  for (const { toTask, accepted } of results) {
    if (accepted !== undefined) series.accepted.push(accepted);
    if (toTask === undefined) series.missed++;
    else series.toTask.push(toTask);
  }
  return series;
}

/** Phones on `node`, connected; stops them when `run` is done. */
async function withPhones<T>(node: GatewayNode, devices: { id: string; token: string }[], run: (arrivals: TaskArrivals) => Promise<T>): Promise<T> {
  const phones = devices.map((device) => new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${node.mqttPort}`, deviceId: device.id, token: device.token }));
  try {
    await Promise.all(phones.map((phone) => phone.connect()));
    return await run(new TaskArrivals(phones));
  } finally {
    await Promise.all(phones.map((phone) => phone.stop().catch(() => {})));
  }
}

export async function clusterLatency(): Promise<Record<string, string | number>[]> {
  const database = await freshDatabase('cluster_latency');
  const prefix = benchRedisPrefix('latency');
  const nodes: GatewayNode[] = [];
  const series: Series[] = [];
  try {
    const tenant = await prepareTenant(database.url, PHONES);

    // 1. One node without Redis: POST and phones on it.
    const single = await spawnNode(database.url, 'bench-single', undefined);
    nodes.push(single);
    // The pacing defaults (5 in flight, 20 a minute) protect a real SIM; lifted, as in dispatch-latency.
    await liftDeviceLimits(`http://127.0.0.1:${single.port}`, tenant.key, tenant.devices.map((device) => device.id));
    await withPhones(single, tenant.devices, async (arrivals) => {
      series.push(await sequential('1 node: POST and phones on it', single, tenant.key, arrivals));
      series.push(await batch(`1 node: ${BATCH} at once`, single, tenant.key, arrivals));
    });
    await single.stop();

    // 2. Two nodes on the same database and Redis; the phones on A.
    const a = await spawnNode(database.url, 'bench-a', prefix);
    nodes.push(a);
    const b = await spawnNode(database.url, 'bench-b', prefix);
    nodes.push(b);
    await withPhones(a, tenant.devices, async (arrivals) => {
      series.push(await sequential('2 nodes: POST on A, phones on A', a, tenant.key, arrivals));
      series.push(await sequential('2 nodes: POST on B, phones on A', b, tenant.key, arrivals));
      series.push(await batch(`2 nodes: ${BATCH} at once on B, phones on A`, b, tenant.key, arrivals));
    });
  } finally {
    for (const node of nodes) await node.stop();
    await dropRedisKeys(prefix).catch(() => 0);
    await database.drop();
  }
  const baselineOf = (name: string) => stats(series.find((s) => s.name.startsWith('1 node') && s.name.includes('at once') === name.includes('at once'))!.toTask);
  return series.map((s) => {
    const toTask = stats(s.toTask);
    const base = baselineOf(s.name);
    return {
      path: s.name,
      'SMS timed': `${toTask.count}/${s.sent}`,
      'task p50 ms': toTask.p50,
      'task p99 ms': toTask.p99,
      'task max ms': toTask.max,
      'p50 / 1 node': s.name.startsWith('1 node') ? '' : ratio(toTask.p50, base.p50),
      'p99 / 1 node': s.name.startsWith('1 node') ? '' : ratio(toTask.p99, base.p99),
      '201 p50 ms': stats(s.accepted).p50,
      missed: s.missed,
    };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(
    `Cluster latency: POST /api/ext/v1/sms -> task at a phone (${PHONES} phones), ${COUNT} one at a time after ${WARMUP} unmeasured, then ${BATCH} at once`,
    await clusterLatency(),
  );
  // Whatever a stopped child left open, a benchmark ends when it is done.
  process.exit(0);
}
