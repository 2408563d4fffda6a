// Fleet on several nodes: CLUSTER_FLEET_DEVICES (default 10,000; `--devices N` too)
// simulated devices connect, subscribe, announce presence and heartbeat and stay, first all to one
// node without Redis, then, the same devices on the same database, spread over two nodes sharing
// PostgreSQL and Redis (device i goes to node i mod 2). For each: the time until the gateway sees
// them all (its metric mqtt_connected_clients, polled on every node, summed), each node's memory
// before and after and per device it holds, and how many of the N each node's GET /devices calls
// online (with presence shared across nodes, every node should say N).
//
// Memory: VmRSS from /proc after a full GC, asked of each node through a small module loaded with
// --import (SIGUSR2), which writes the node's heap figures to a file; before the fleet (after a
// warm-up of CLUSTER_FLEET_WARMUP devices per node, so one-time costs are not counted per device)
// and after all are online and idle.
//
// Every connection comes from 127.0.0.1 (mqtt.js does not pass localAddress through), so the
// per-address connection cap is lifted. The phones run in several generator processes
// (fleet-generators.ts), as in the one-node fleet benchmark: one process holds no more sockets than
// its open-file limit (20,000 here), which bounds what one node holds too; two nodes on ports of
// their own each have the ephemeral port range to themselves, so 2 x 19,000 fit.
//
// CLUSTER_FLEET_CONCURRENCY (connects in flight, 300), CLUSTER_FLEET_PHASE_LIMIT_S (each wait, 90),
// CLUSTER_FLEET_SETTLE_S (5), CLUSTER_FLEET_TIMEOUT_S (whole run, 400).
//
// This file also holds what the multi-node benchmarks share (a node started with Redis, a Redis
// prefix per run and its removal afterwards): cluster-latency.ts imports them.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { closeDatabase, openDatabase } from '../../src/storage/database.ts';
import { FleetGenerators, registerFleetDevices } from './fleet-generators.ts';
import { CpuOfProcesses, freshDatabase, METRICS_SCRAPE_HEADERS, prepareTenant, printTable, processCpuMs, ratio, spawnGateway } from './support.ts';

export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** `--name N` or `--name=N` on the command line. */
export function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
}

/** A Redis prefix no other run uses, so that runs sharing the Redis never hear each other. */
export function benchRedisPrefix(label: string): string {
  return `sms-gateway-bench-${label}-${randomBytes(3).toString('hex')}`;
}

/** Nodes of one deployment share the key that encrypts webhook secrets; one per run here. */
const SHARED_SECRET_KEY = randomBytes(32).toString('hex');

export type GatewayNode = Awaited<ReturnType<typeof spawnGateway>> & { nodeId: string };

/** `sms-gateway serve` as one node: with `redisPrefix`, joined to the others over Redis; without, a single node. */
export async function spawnNode(
  databaseUrl: string,
  nodeId: string,
  redisPrefix: string | undefined,
  env: Record<string, string> = {},
  nodeArgs?: string[],
): Promise<GatewayNode> {
  const cluster: Record<string, string> = redisPrefix ? { REDIS_URL: BENCH_REDIS_URL, REDIS_PREFIX: redisPrefix } : {};
  // The key every node of the run shares, the single node's too: the database remembers which key
  // sealed its secrets, and refuses a node with another.
  const node = await spawnGateway(databaseUrl, { NODE_ID: nodeId, WEBHOOK_SECRET_KEY: SHARED_SECRET_KEY, ...cluster, ...env }, nodeArgs);
  return { ...node, nodeId };
}

/** Calls `visit` with each batch of a run's Redis keys (SCAN under the prefix). */
async function forEachKeys(prefix: string, visit: (redis: Redis, keys: string[]) => Promise<void>): Promise<void> {
  const redis = new Redis(BENCH_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await visit(redis, keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Removes every Redis key of a run (retained messages, presence), so that runs leave nothing behind. */
export async function dropRedisKeys(prefix: string): Promise<number> {
  let dropped = 0;
  await forEachKeys(prefix, async (redis, keys) => void (dropped += await redis.del(...keys)));
  return dropped;
}

/** Bytes Redis holds under a run's prefix (MEMORY USAGE of every key, exact: SAMPLES 0). */
async function redisBytes(prefix: string): Promise<number> {
  let bytes = 0;
  await forEachKeys(prefix, async (redis, keys) => {
    for (const key of keys) bytes += Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) || 0;
  });
  return bytes;
}

const N = Number(flag('devices') ?? process.env.CLUSTER_FLEET_DEVICES ?? 10_000);
const WARMUP = Number(process.env.CLUSTER_FLEET_WARMUP ?? 50);
const CONCURRENCY = Number(process.env.CLUSTER_FLEET_CONCURRENCY ?? 300);
const PHASE_LIMIT_MS = Number(process.env.CLUSTER_FLEET_PHASE_LIMIT_S ?? 90) * 1000;
const SETTLE_MS = Number(process.env.CLUSTER_FLEET_SETTLE_S ?? 5) * 1000;
// Below the time `npm run bench` allows this scenario, so that it always cleans up itself.
const TIMEOUT_MS = Number(process.env.CLUSTER_FLEET_TIMEOUT_S ?? 400) * 1000;
/** How often the nodes' connection counts are read while the fleet connects. */
const POLL_MS = 100;

interface Credentials {
  id: string;
  token: string;
}

/** CPU (ms) used during the connect phase, outside the nodes: on 2 cores, the phase is a share of them. */
interface CpuFigures {
  redis: number;
  postgres: number;
  clients: number;
}

interface Memory {
  rssKb: number;
  heapUsedKb: number | undefined;
}

interface NodeFigures {
  nodeId: string;
  devices: number;
  allSeenMs: number | undefined;
  /** CPU the node used from the first connect until it counted all its devices (or the phase limit). */
  connectCpuMs: number;
  before: Memory;
  after: Memory;
  onlineInList: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const log = (message: string) => process.stderr.write(`[cluster-fleet ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

// Everything a run starts, for the cleanup (which also runs on the hard timeout and SIGINT).
let work = '';
const nodes: GatewayNode[] = [];
const fleets: SimulatedDevice[][] = [];
let generators: FleetGenerators | undefined;
const prefixes: string[] = [];
let database: { url: string; drop: () => Promise<void> } | undefined;

/**
 * Node arguments that load a probe into each node (node --import): on SIGUSR2 it collects garbage
 * and writes its memory usage to a file in `work` named by its pid. The node's own stderr stays
 * where spawnGateway sends it.
 */
function memoryProbeArgs(): string[] {
  const probe = join(work, 'memory-probe.mjs');
  writeFileSync(
    probe,
    `import { writeFileSync } from 'node:fs';
     process.on('SIGUSR2', () => {
       if (typeof globalThis.gc === 'function') { globalThis.gc(); globalThis.gc(); }
       writeFileSync(${JSON.stringify(work)} + '/memory-' + process.pid + '.json', JSON.stringify(process.memoryUsage()));
     });\n`,
  );
  return ['--expose-gc', `--import=${probe}`];
}

function vmRssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]);
}

/** Memory after a full garbage collection: VmRSS from /proc, heap from the probe. */
async function memoryOf(node: GatewayNode): Promise<Memory> {
  const pid = node.child.pid!;
  const file = join(work, `memory-${pid}.json`);
  if (existsSync(file)) unlinkSync(file);
  node.child.kill('SIGUSR2');
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (existsSync(file)) {
      try {
        const usage = JSON.parse(readFileSync(file, 'utf8')) as NodeJS.MemoryUsage;
        return { rssKb: vmRssKb(pid), heapUsedKb: usage.heapUsed / 1024 };
      } catch {
        // written this very moment: read it again
      }
    }
    await sleep(20);
  }
  log(`${node.nodeId} did not answer the memory probe; heap not measured`);
  return { rssKb: vmRssKb(pid), heapUsedKb: undefined };
}

/** The node's mqtt_connected_clients (with or without a node label). */
async function connectedClients(node: GatewayNode): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${node.port}/metrics`, { headers: METRICS_SCRAPE_HEADERS });
  const page = await response.text();
  const match = /^mqtt_connected_clients(?:\{[^}]*\})? (\d+)/m.exec(page);
  if (!match) throw new Error(`${node.nodeId}: no mqtt_connected_clients in /metrics`);
  return Number(match[1]);
}

/** How many of the account's devices this node's GET /devices calls online (every page). */
async function onlineInList(node: GatewayNode, key: string): Promise<number> {
  let online = 0;
  let cursor: string | undefined;
  do {
    const url = new URL(`http://127.0.0.1:${node.port}/api/ext/v1/devices`);
    url.searchParams.set('limit', '100');
    if (cursor) url.searchParams.set('cursor', cursor);
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    if (response.status !== 200) throw new Error(`${node.nodeId}: GET /devices answered ${response.status}`);
    const page = (await response.json()) as { data: { is_online: boolean }[]; next_cursor: string | null };
    online += page.data.filter((device) => device.is_online).length;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return online;
}

/**
 * The warm-up's few devices, in this process: connects one SimulatedDevice per credential to
 * `brokerUrlOf(i)`, CONCURRENCY in flight, adding each to `devices` (the caller stops them, even
 * when it stops waiting); resolves with the number that failed when every connect settled.
 */
async function connectFleet(credentials: Credentials[], brokerUrlOf: (index: number) => string, devices: SimulatedDevice[] = []): Promise<number> {
  fleets.push(devices);
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < credentials.length) {
      const index = next++;
      const { id, token } = credentials[index]!;
      const device = new SimulatedDevice({
        brokerUrl: brokerUrlOf(index),
        deviceId: id,
        token,
        // Phones back off with jitter; a fixed period would make every retry a synchronized wave.
        reconnectPeriodMs: 500 + Math.floor(Math.random() * 1000),
        heartbeatIntervalMs: 60_000,
        keepaliveSeconds: 60,
      });
      devices.push(device);
      for (let attempt = 1; ; attempt++) {
        try {
          await device.connect();
          break;
        } catch (error) {
          if (attempt >= 3) {
            failed++;
            if (failed <= 5) log(`device ${index} failed to connect: ${(error as Error).message}`);
            break;
          }
          await sleep(200 * attempt);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, credentials.length) }, worker));
  return failed;
}

async function stopFleet(devices: SimulatedDevice[], graceful: boolean): Promise<void> {
  const stops = devices.map((device) => (graceful ? device.stop() : device.kill()).catch(() => {}));
  await Promise.race([Promise.all(stops), sleep(20_000)]);
  devices.length = 0;
}

/**
 * One configuration: `nodeIds.length` nodes (with Redis when more than one), a warm-up on each,
 * memory before, the fleet spread over them, the time until their connection counts reach their
 * shares, memory after, GET /devices on each. Stops everything it started.
 */
async function runConfiguration(
  label: string,
  databaseUrl: string,
  key: string,
  nodeIds: string[],
  credentials: Credentials[],
  warmups: Credentials[][],
): Promise<{ nodes: NodeFigures[]; allSeenMs: number | undefined; clientsDoneMs: number; failed: number; redisKb: number; cpuMs: CpuFigures }> {
  const prefix = nodeIds.length > 1 ? benchRedisPrefix('fleet') : undefined;
  if (prefix) prefixes.push(prefix);
  const started: GatewayNode[] = [];
  const probeArgs = memoryProbeArgs();
  for (const nodeId of nodeIds) {
    // Every simulated phone connects from 127.0.0.1: lift the per-address cap meant for NAT, and
    // the cap in all (half the open-file limit by default).
    const node = await spawnNode(databaseUrl, nodeId, prefix, { MQTT_MAX_CONNECTIONS_PER_ADDRESS: String(N + 1_000), MQTT_MAX_CONNECTIONS: String(N + 1_000) }, probeArgs);
    nodes.push(node);
    started.push(node);
    log(`${label}: ${nodeId} pid ${node.child.pid} listening: http ${node.port}, mqtt ${node.mqttPort}`);
  }
  const urlOf = (index: number) => `mqtt://127.0.0.1:${started[index % started.length]!.mqttPort}`;
  try {
    for (const [i, node] of started.entries()) {
      const warm: SimulatedDevice[] = [];
      await connectFleet(warmups[i]!, () => `mqtt://127.0.0.1:${node.mqttPort}`, warm);
      await stopFleet(warm, true);
    }
    await sleep(SETTLE_MS);
    const before = await Promise.all(started.map(memoryOf));
    const idleClients = await Promise.all(started.map(connectedClients));
    const redisBefore = prefix ? await redisBytes(prefix) : 0;
    const shares = started.map((_, i) => credentials.filter((_, index) => index % started.length === i).length);

    // The fleet connects while the nodes' counts are polled: "all online" is the gateway's view.
    // CPU is counted alongside, for every process the phase keeps busy (the Redis is shared with
    // whatever else uses it; PostgreSQL's backends of this database only).
    const redisCpu = new CpuOfProcesses('redis-server');
    const postgresCpu = new CpuOfProcesses('postgres', new URL(databaseUrl).pathname.slice(1));
    const cpuAtStart = { redis: redisCpu.totalMs(), postgres: postgresCpu.totalMs() };
    const nodeCpuAtStart = started.map((node) => processCpuMs(node.child.pid!) ?? 0);
    const nodeCpuUsed = started.map(() => 0);
    const t0 = performance.now();
    const seenAt: (number | undefined)[] = started.map(() => undefined);
    let polling = true;
    const poll = (async () => {
      const deadline = t0 + PHASE_LIMIT_MS;
      while (polling && performance.now() < deadline && seenAt.some((at) => at === undefined)) {
        const counts = await Promise.all(started.map(connectedClients));
        const now = performance.now();
        counts.forEach((count, i) => {
          if (seenAt[i] !== undefined) return;
          nodeCpuUsed[i] = (processCpuMs(started[i]!.child.pid!) ?? 0) - nodeCpuAtStart[i]!;
          if (count - idleClients[i]! >= shares[i]!) seenAt[i] = now - t0;
        });
        await sleep(POLL_MS);
      }
    })();
    const progress = setInterval(() => {
      void Promise.all(started.map(connectedClients)).then(
        (counts) => log(`${label}: ${counts.map((count, i) => `${started[i]!.nodeId} ${count - idleClients[i]!}/${shares[i]}`).join(', ')}`),
        () => {},
      );
    }, 5_000);
    const devices = credentials.map(({ id, token }, index) => ({ id, token, name: `fleet-${index + 1}`, brokerUrl: urlOf(index) }));
    const connected = await generators!.connect(urlOf(0), devices, { concurrency: CONCURRENCY, phaseLimitMs: PHASE_LIMIT_MS });
    const clientsDoneMs = connected.allOnlineMs ?? connected.elapsedMs;
    await poll;
    polling = false;
    const cpuMs = {
      redis: redisCpu.totalMs() - cpuAtStart.redis,
      postgres: postgresCpu.totalMs() - cpuAtStart.postgres,
      clients: connected.generatorCpuMs,
    };
    redisCpu.stop();
    postgresCpu.stop();
    clearInterval(progress);
    if (connected.allOnlineMs === undefined) log(`${label}: the phase limit of ${PHASE_LIMIT_MS / 1000} s struck before every device connected`);
    const allSeenMs = seenAt.every((at) => at !== undefined) ? Math.max(...(seenAt as number[])) : undefined;
    log(`${label}: all ${N} seen by the gateway ${allSeenMs === undefined ? 'NOT within the phase limit' : `in ${(allSeenMs / 1000).toFixed(2)} s`}`);

    await sleep(SETTLE_MS);
    const after = await Promise.all(started.map(memoryOf));
    const redisAfter = prefix ? await redisBytes(prefix) : 0;
    const listed = await Promise.all(started.map((node) => onlineInList(node, key)));
    await generators!.stop(true);
    return {
      nodes: started.map((node, i) => ({
        nodeId: node.nodeId,
        devices: shares[i]!,
        allSeenMs: seenAt[i],
        connectCpuMs: nodeCpuUsed[i]!,
        before: before[i]!,
        after: after[i]!,
        onlineInList: listed[i]!,
      })),
      cpuMs,
      allSeenMs,
      clientsDoneMs,
      redisKb: (redisAfter - redisBefore) / 1024,
      failed: N - connected.online,
    };
  } finally {
    for (const node of started) await node.stop();
  }
}

let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const devices of fleets) await stopFleet(devices, false);
    await generators?.close();
    await Promise.all(nodes.map((node) => node.stop()));
    for (const prefix of prefixes) {
      await dropRedisKeys(prefix).catch((error: unknown) => log(`could not remove the Redis keys ${prefix}:*: ${(error as Error).message}`));
    }
    if (database) await database.drop().catch((error: unknown) => log(`could not drop ${database?.url}: ${(error as Error).message}`));
    if (work) rmSync(work, { recursive: true, force: true });
  })();
  return cleaning;
}

async function main(): Promise<void> {
  const hardTimeout = setTimeout(() => {
    log(`hard timeout of ${TIMEOUT_MS / 1000} s: cleaning up and exiting`);
    void cleanup().finally(() => process.exit(2));
  }, TIMEOUT_MS);
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  let exitCode = 0;
  try {
    work = mkdtempSync(join(tmpdir(), 'sms-gateway-cluster-fleet-'));
    database = await freshDatabase('cluster_fleet');
    const registering = Date.now();
    // Three warm-up sets: one for each node of the pair, one for the single node; registered as
    // the API registers them. The fleet itself is written straight into the table (token hashes
    // as registration stores them): tens of thousands registered one by one would take minutes.
    const tenant = await prepareTenant(database.url, 3 * WARMUP);
    const db = await openDatabase({ databaseUrl: database.url, dataDir: ':memory:' });
    const credentials = await registerFleetDevices(db, N, tenant.accountId).finally(() => closeDatabase(db));
    log(`registered ${N} + ${3 * WARMUP} warm-up devices in ${((Date.now() - registering) / 1000).toFixed(1)} s`);
    const warm = (i: number) => tenant.devices.slice(i * WARMUP, (i + 1) * WARMUP);
    generators = FleetGenerators.start(N, 2);
    log(`load generator: ${generators.processes} processes`);

    const single = await runConfiguration('1 node', database.url, tenant.key, ['bench-single'], credentials, [warm(0)]);
    const pair = await runConfiguration('2 nodes', database.url, tenant.key, ['bench-a', 'bench-b'], credentials, [warm(1), warm(2)]);

    const mb = (kb: number) => (kb / 1024).toFixed(1);
    const kb = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(1));
    const seconds = (ms: number | undefined) => (ms === undefined ? 'not all' : (ms / 1000).toFixed(2));
    const perDeviceMs = (ms: number, devices: number) => (devices ? (ms / devices).toFixed(2) : 'n/a');
    const perDevice = (figures: NodeFigures) => (figures.devices ? (figures.after.rssKb - figures.before.rssKb) / figures.devices : undefined);
    const heapPerDevice = (figures: NodeFigures) =>
      figures.devices && figures.after.heapUsedKb !== undefined && figures.before.heapUsedKb !== undefined
        ? (figures.after.heapUsedKb - figures.before.heapUsedKb) / figures.devices
        : undefined;
    const one = single.nodes[0]!;
    const [a, b] = pair.nodes as [NodeFigures, NodeFigures];
    const totalRss = (figures: NodeFigures[], which: 'before' | 'after') => figures.reduce((sum, node) => sum + node[which].rssKb, 0);
    const row = (figure: string, values: [string, string, string, string], ratioText = '') => ({
      figure,
      '1 node': values[0],
      'bench-a': values[1],
      'bench-b': values[2],
      '2 nodes together': values[3],
      '2 nodes / 1 node': ratioText,
    });
    printTable(`Cluster fleet: ${N} devices on 1 node, then spread over 2 nodes (PostgreSQL + Redis), ${CONCURRENCY} connects in flight, 127.0.0.1`, [
      row('devices connected to the node', [String(one.devices), String(a.devices), String(b.devices), String(a.devices + b.devices)]),
      row('time until the node counts all its devices (s)', [seconds(one.allSeenMs), seconds(a.allSeenMs), seconds(b.allSeenMs), seconds(pair.allSeenMs)],
        pair.allSeenMs !== undefined && single.allSeenMs !== undefined ? ratio(pair.allSeenMs, single.allSeenMs) : 'n/a'),
      row('time until every client connected (s, client side)', [seconds(single.clientsDoneMs), '', '', seconds(pair.clientsDoneMs)], ratio(pair.clientsDoneMs, single.clientsDoneMs)),
      row('CPU of the node while connecting, per device (ms)', [perDeviceMs(one.connectCpuMs, one.devices), perDeviceMs(a.connectCpuMs, a.devices),
        perDeviceMs(b.connectCpuMs, b.devices), perDeviceMs(a.connectCpuMs + b.connectCpuMs, N)],
        ratio(a.connectCpuMs + b.connectCpuMs, one.connectCpuMs)),
      row('  CPU of Redis, per device (ms)', [perDeviceMs(single.cpuMs.redis, N), '', '', perDeviceMs(pair.cpuMs.redis, N)]),
      row('  CPU of PostgreSQL, per device (ms)', [perDeviceMs(single.cpuMs.postgres, N), '', '', perDeviceMs(pair.cpuMs.postgres, N)],
        ratio(pair.cpuMs.postgres, single.cpuMs.postgres)),
      row('  CPU of the simulated phones, per device (ms)', [perDeviceMs(single.cpuMs.clients, N), '', '', perDeviceMs(pair.cpuMs.clients, N)],
        ratio(pair.cpuMs.clients, single.cpuMs.clients)),
      row('devices failed to connect', [String(single.failed), '', '', String(pair.failed)]),
      row('RSS idle, before devices (MB)', [mb(one.before.rssKb), mb(a.before.rssKb), mb(b.before.rssKb), mb(totalRss(pair.nodes, 'before'))]),
      row('RSS with all connected (MB)', [mb(one.after.rssKb), mb(a.after.rssKb), mb(b.after.rssKb), mb(totalRss(pair.nodes, 'after'))]),
      row('RSS per device the node holds (KB)', [kb(perDevice(one)), kb(perDevice(a)), kb(perDevice(b)),
        kb((totalRss(pair.nodes, 'after') - totalRss(pair.nodes, 'before')) / N)],
        ratio((totalRss(pair.nodes, 'after') - totalRss(pair.nodes, 'before')) / N, perDevice(one) ?? 0)),
      row('Redis memory per device, the run\'s keys (KB)', ['', '', '', kb(pair.redisKb / N)]),
      row('JS heap per device the node holds (KB)', [kb(heapPerDevice(one)), kb(heapPerDevice(a)), kb(heapPerDevice(b)), '']),
      row(`devices online in this node's GET /devices (of ${N})`, [String(one.onlineInList), String(a.onlineInList), String(b.onlineInList), '']),
    ]);
    process.stdout.write(
      '\nMemory after a full GC in each node (VmRSS from /proc); per device = (after - before) / devices connected to that node.\n' +
        '"Counts all its devices": the node\'s mqtt_connected_clients, polled every 100 ms from the first connect.\n' +
        'CPU from /proc over the connect phase: each node until it counted all its devices; Redis (shared with anything else on it), this database\'s PostgreSQL backends and the simulated phones over the whole phase.\n',
    );
  } catch (error) {
    exitCode = 1;
    log(`failed: ${(error as Error).stack ?? String(error)}`);
  } finally {
    clearTimeout(hardTimeout);
    await cleanup();
  }
  process.exit(exitCode);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
