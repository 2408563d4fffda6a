// The broker's persistence with several nodes: Aedes' stock aedes-persistence-redis
// against what the gateway does (sessions in each node's memory, only retained messages in Redis,
// broker/shared-retained-store.ts), on the local Redis, without TCP or MQTT clients: each store is
// the persistence object of a real Aedes broker, called as Aedes calls it.
//
// 1. Subscribe storm: N devices (1,000 and 10,000; `--devices 1000,10000`) each with three
//    retained messages (presence, heartbeat, settings), then N SUBSCRIBEs, each asking for the
//    retained messages of the three exact topics of its own device and reading them to the end,
//    BROKER_PERSISTENCE_CONCURRENCY (100) at a time; then one wildcard SUBSCRIBE matching every
//    device's presence. Stores: (a) stock aedes-persistence-redis, (b) ours over Redis, (c) the
//    single node's indexed tree (broker/retained-store.ts), (d) Aedes' default in-memory
//    persistence, which tests every retained message against every filter: quadratic. A storm
//    stops after BROKER_PERSISTENCE_LIMIT_S (60) and reports its rate and the time all N would
//    take at that rate. "Longest loop stall": the longest time no timer could run meanwhile, what
//    every other connection of that broker would wait.
// 2. One QoS 1 task to a persistent session, as the persistence sees it (outgoingEnqueueCombi
//    when published, outgoingUpdate when sent with its packet id, outgoingClearMessageId at the
//    PUBACK), BROKER_PERSISTENCE_TASKS (10,000) times, one at a time and then 100 phones at
//    once: stock aedes-persistence-redis against aedes-persistence in memory (which the gateway
//    keeps, one per node). Then whether the stock one answers at all while its Redis is
//    unreachable (a closed port), each call waited for at most BROKER_PERSISTENCE_UNREACHABLE_S (5).
//
// Redis keys live under a prefix of this run's own and are removed at the end.
//
//   npx tsx scripts/bench/broker-persistence.ts
//   npx tsx scripts/bench/broker-persistence.ts --devices 1000 --tasks 2000
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import type { Readable } from 'node:stream';
import { Aedes } from 'aedes';
import { Redis } from 'ioredis';
import { indexRetainedMessages } from '../../broker/retained-store.ts';
import { shareRetainedMessages } from '../../broker/shared-retained-store.ts';
import { Metrics } from '../../src/common/metrics.ts';
import { redisOptions } from '../../src/cluster/redis.ts';
import { BENCH_REDIS_URL, benchRedisPrefix, dropRedisKeys, flag } from './cluster-fleet.ts';
import { freePort, printTable, stats } from './support.ts';

const DEVICE_COUNTS = (flag('devices') ?? process.env.BROKER_PERSISTENCE_DEVICES ?? '1000,10000').split(',').map(Number);
const CONCURRENCY = Number(process.env.BROKER_PERSISTENCE_CONCURRENCY ?? 100);
const STORM_LIMIT_MS = Number(process.env.BROKER_PERSISTENCE_LIMIT_S ?? 60) * 1000;
const TASKS = Number(flag('tasks') ?? process.env.BROKER_PERSISTENCE_TASKS ?? 10_000);
const TASK_PHONES = 100;
const UNREACHABLE_WAIT_MS = Number(process.env.BROKER_PERSISTENCE_UNREACHABLE_S ?? 5) * 1000;
const TOPIC_PREFIX = 'sms-gateway/v1/devices';
const KINDS = ['presence', 'heartbeat', 'settings'] as const;

// aedes-persistence-redis ships no type declarations: loaded with require, typed by the calls made here.
const require = createRequire(import.meta.url);
const stockRedisPersistence = require('aedes-persistence-redis') as (options: Record<string, unknown>) => Persistence;

interface Packet {
  cmd: 'publish';
  topic: string;
  payload: Buffer;
  qos: 0 | 1 | 2;
  retain: boolean;
  dup?: boolean;
  brokerId?: string;
  brokerCounter?: number;
  messageId?: number;
}

/** The persistence calls measured here, in their promise form (the one Aedes 1.x uses). */
interface Persistence {
  storeRetained(packet: Packet): Promise<void> | void;
  createRetainedStream(filter: string): Readable;
  createRetainedStreamCombi(filters: string[]): Readable;
  outgoingEnqueueCombi(subs: { clientId: string; topic: string; qos: number }[], packet: Packet): Promise<void>;
  outgoingUpdate(client: { id: string }, packet: Packet): Promise<void>;
  outgoingClearMessageId(client: { id: string }, packet: { messageId: number }): Promise<Packet | undefined>;
}

/** One broker and the persistence it serves retained messages (or sessions) from. */
interface Contender {
  name: string;
  aedes: Aedes;
  persistence: Persistence;
  close(): Promise<void>;
}

function persistenceOf(aedes: Aedes): Persistence {
  // Aedes 1.x keeps its persistence on `broker.persistence` (not in its type declarations).
  return (aedes as unknown as { persistence: Persistence }).persistence;
}

function closeBroker(aedes: Aedes): Promise<void> {
  return new Promise((resolve) => aedes.close(() => resolve()));
}

/** (a): every piece of broker state in Redis, its keys under `keyPrefix`. */
async function stockRedis(keyPrefix: string): Promise<Contender & { redis: Redis }> {
  // Its own constructor would open the connection from the same options; given one, the keys get a prefix of this run's.
  const redis = new Redis(BENCH_REDIS_URL, { keyPrefix });
  const aedes = await Aedes.createBroker({ persistence: stockRedisPersistence({ conn: redis }) as never });
  // Its destroy() disconnects the connection it was given.
  return { name: 'a. stock aedes-persistence-redis', aedes, persistence: persistenceOf(aedes), redis, close: () => closeBroker(aedes) };
}

/** (b): what a node of several does: sessions in memory, retained messages in one Redis hash. */
async function sharedRetained(key: string): Promise<Contender> {
  const redis = new Redis(BENCH_REDIS_URL, redisOptions());
  // Without an offline queue a command fails until the connection is ready: the node waits for it too.
  await new Promise((resolve, reject) => {
    redis.once('ready', resolve);
    redis.once('error', reject);
  });
  const aedes = await Aedes.createBroker();
  shareRetainedMessages(aedes, redis, key, new Metrics());
  return {
    name: 'b. ours: retained in Redis',
    aedes,
    persistence: persistenceOf(aedes),
    close: async () => {
      await closeBroker(aedes);
      redis.disconnect();
    },
  };
}

/** (c): the single node: sessions and an indexed tree of retained messages in memory. */
async function indexedInMemory(): Promise<Contender> {
  const aedes = await Aedes.createBroker();
  indexRetainedMessages(aedes);
  return { name: 'c. ours: single node, indexed', aedes, persistence: persistenceOf(aedes), close: () => closeBroker(aedes) };
}

/** (d): Aedes' default, aedes-persistence in memory. */
async function defaultInMemory(): Promise<Contender> {
  const aedes = await Aedes.createBroker();
  return { name: 'd. stock aedes-persistence', aedes, persistence: persistenceOf(aedes), close: () => closeBroker(aedes) };
}

interface PoolRun {
  samples: number[];
  elapsedMs: number;
  /** Whether it stopped at `limitMs` before every job ran. */
  stopped: boolean;
}

/** Runs job(0 .. count-1), `concurrency` at a time, starting none after `limitMs`; times each. */
async function pool(count: number, concurrency: number, limitMs: number, job: (i: number) => Promise<void>): Promise<PoolRun> {
  const samples: number[] = [];
  const started = performance.now();
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (next < count) {
      if (performance.now() - started > limitMs) {
        stopped = true;
        return;
      }
      const i = next++;
      // Each job arrives as its own event (a SUBSCRIBE read from a socket): the loop turns between
      // jobs, so that a job that holds it shows up in longestStall.
      await new Promise((resolve) => setImmediate(resolve));
      const jobStarted = performance.now();
      await job(i);
      samples.push(performance.now() - jobStarted);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { samples, elapsedMs: performance.now() - started, stopped };
}

/** Runs `run`; also returns the longest time (ms) the event loop ran no timer meanwhile, less the timer's own period. */
async function longestStall<T>(run: () => Promise<T>): Promise<[T, number]> {
  const periodMs = 5;
  let last = performance.now();
  let longest = 0;
  const gap = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last - periodMs);
    last = now;
  };
  const timer = setInterval(gap, periodMs);
  try {
    const result = await run();
    // A loop held until the very end never ran the timer at all: that counts too.
    gap();
    return [result, Math.max(0, longest)];
  } finally {
    clearInterval(timer);
  }
}

async function readAll(stream: Readable): Promise<Packet[]> {
  const packets: Packet[] = [];
  for await (const packet of stream) packets.push(packet as Packet);
  return packets;
}

function retainedPackets(deviceId: string): Packet[] {
  const at = new Date().toISOString();
  const payloads: Record<(typeof KINDS)[number], unknown> = {
    presence: { online: true, at },
    heartbeat: { battery: 87, charging: false, signal: -71, at },
    settings: { send_window: 5, limits: { per_minute: 20, per_hour: 300, per_day: 2000 } },
  };
  return KINDS.map((kind) => ({
    cmd: 'publish',
    topic: `${TOPIC_PREFIX}/${deviceId}/${kind}`,
    payload: Buffer.from(JSON.stringify(payloads[kind])),
    qos: 1,
    retain: true,
  }));
}

const ms = (n: number) => Math.round(n);

/** Fills the store with every device's retained messages, then runs the storm and one wildcard SUBSCRIBE. */
async function storm(contender: Contender, deviceIds: string[]): Promise<Record<string, string | number>> {
  const { persistence } = contender;
  const stored = await pool(deviceIds.length, CONCURRENCY, Infinity, async (i) => {
    for (const packet of retainedPackets(deviceIds[i]!)) await persistence.storeRetained(packet);
  });
  const [run, stallMs] = await longestStall(() =>
    pool(deviceIds.length, CONCURRENCY, STORM_LIMIT_MS, async (i) => {
      const filters = KINDS.map((kind) => `${TOPIC_PREFIX}/${deviceIds[i]}/${kind}`);
      const found = await readAll(persistence.createRetainedStreamCombi(filters));
      if (found.length !== KINDS.length) throw new Error(`${contender.name}: ${found.length} retained messages for device ${i}, expected ${KINDS.length}`);
    }),
  );
  const wildcardStarted = performance.now();
  const presences = await readAll(persistence.createRetainedStream(`${TOPIC_PREFIX}/+/presence`));
  const wildcardMs = performance.now() - wildcardStarted;
  if (presences.length !== deviceIds.length) throw new Error(`${contender.name}: wildcard found ${presences.length} presences of ${deviceIds.length}`);
  const { p50, p99 } = stats(run.samples);
  const rate = run.samples.length / (run.elapsedMs / 1000);
  return {
    store: contender.name,
    devices: deviceIds.length,
    'fill ms': ms(stored.elapsedMs),
    subscribes: run.samples.length,
    'storm ms': run.stopped ? `stopped at ${ms(run.elapsedMs)}` : ms(run.elapsedMs),
    'subscribes/s': Math.round(rate),
    'all N at that rate, s': (deviceIds.length / rate).toFixed(1),
    'p50 ms': p50,
    'p99 ms': p99,
    'longest loop stall ms': ms(stallMs),
    'wildcard ms': ms(wildcardMs),
  };
}

async function subscribeStorms(prefix: string): Promise<Record<string, string | number>[]> {
  const rows: Record<string, string | number>[] = [];
  for (const devices of DEVICE_COUNTS) {
    const deviceIds = Array.from({ length: devices }, () => randomUUID());
    const contenders = [
      () => stockRedis(`${prefix}:stock-${devices}:`),
      () => sharedRetained(`${prefix}:retained-${devices}`),
      indexedInMemory,
      defaultInMemory,
    ];
    for (const start of contenders) {
      const contender = await start();
      try {
        const row = await storm(contender, deviceIds);
        rows.push(row);
        process.stderr.write(`${row.store} N=${devices}: ${row['storm ms']} ms\n`);
      } finally {
        await contender.close();
      }
    }
  }
  return rows;
}

/** The persistence's part of one QoS 1 task to `phone`: queued at publish, its packet id noted at sending, cleared at PUBACK. */
async function oneTask(aedes: Aedes, persistence: Persistence, phone: string, messageId: number): Promise<void> {
  const client = { id: phone };
  const topic = `${TOPIC_PREFIX}/${phone}/tasks`;
  const broker = aedes as unknown as { id: string; counter: number };
  // As aedes-packet builds it when the gateway publishes a task.
  const packet: Packet = {
    cmd: 'publish',
    topic,
    payload: Buffer.from(JSON.stringify({ id: randomUUID(), to: '+79160000000', text: 'x'.repeat(70) })),
    qos: 1,
    retain: false,
    dup: false,
    brokerId: broker.id,
    brokerCounter: ++broker.counter,
  };
  await persistence.outgoingEnqueueCombi([{ clientId: phone, topic, qos: 1 }], packet);
  await persistence.outgoingUpdate(client, { ...packet, messageId });
  const cleared = await persistence.outgoingClearMessageId(client, { messageId });
  if (cleared?.topic !== topic) throw new Error(`task ${messageId} of ${phone} was not in the session's queue when acknowledged`);
}

async function sessionTasks(prefix: string): Promise<Record<string, string | number>[]> {
  const rows: Record<string, string | number>[] = [];
  const contenders = [() => stockRedis(`${prefix}:sessions:`), defaultInMemory];
  for (const start of contenders) {
    const contender = await start();
    // Counts the Redis commands the stock persistence sends per task (the connection is this run's own).
    let commands = 0;
    if ('redis' in contender) {
      const redis = contender.redis as Redis;
      const send = redis.sendCommand.bind(redis);
      redis.sendCommand = (command, stream) => {
        commands++;
        return send(command, stream);
      };
    }
    try {
      const phones = Array.from({ length: TASK_PHONES }, () => randomUUID());
      const series: [string, number][] = [
        ['one at a time', 1],
        [`${TASK_PHONES} phones at once`, TASK_PHONES],
      ];
      for (const [label, concurrency] of series) {
        commands = 0;
        const nextId = new Map<string, number>();
        const run = await pool(TASKS, concurrency, Infinity, async (i) => {
          const phone = phones[i % concurrency]!;
          // Packet ids per phone, 1 to 65535 as MQTT allows.
          const id = ((nextId.get(phone) ?? 0) % 65_535) + 1;
          nextId.set(phone, id);
          await oneTask(contender.aedes, contender.persistence, phone, id);
        });
        const { p50, p99, max } = stats(run.samples);
        rows.push({
          persistence: contender.name,
          tasks: run.samples.length,
          series: label,
          'tasks/s': Math.round(run.samples.length / (run.elapsedMs / 1000)),
          'p50 ms': p50,
          'p99 ms': p99,
          'max ms': max,
          'Redis commands per task': 'redis' in contender ? (commands / run.samples.length).toFixed(1) : 0,
        });
      }
    } finally {
      await contender.close();
    }
  }
  return rows;
}

type Outcome = { answer: string; ms: number };

/** Waits for `call` at most UNREACHABLE_WAIT_MS: what it answered and when, or that it did not. */
async function bounded(call: () => Promise<unknown>): Promise<Outcome> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${UNREACHABLE_WAIT_MS / 1000} s`), UNREACHABLE_WAIT_MS);
  });
  const answered = call().then(
    () => 'succeeded',
    (error: unknown) => `failed: ${error instanceof Error ? error.message.split('. ')[0] : String(error)}`,
  );
  const answer = await Promise.race([answered, timeout]);
  clearTimeout(timer);
  return { answer, ms: ms(performance.now() - started) };
}

/** Each call of the stock persistence while nothing listens on its Redis port, and ours for comparison. */
async function unreachableRedis(): Promise<Record<string, string | number>[]> {
  const port = await freePort();
  const rows: Record<string, string | number>[] = [];
  const row = (persistence: string, call: string, outcome: Outcome) => rows.push({ persistence, call, answer: outcome.answer, ms: outcome.ms });

  // The stock persistence as its README configures it: its own connection, with the defaults of
  // the ioredis it bundles (commands queued while disconnected, 20 reconnects before one fails).
  // That connection has no error listener of ours, so ioredis prints each failed reconnect: kept
  // out of the tables' output, the rest of stderr passes.
  const printError = console.error;
  console.error = (...args: unknown[]) => {
    if (!String(args[0]).startsWith('[ioredis]')) printError(...args);
  };
  const stock = stockRedisPersistence({ host: '127.0.0.1', port }) as Persistence & { asyncPersistence: { destroy(): Promise<void> } };
  const broker = { id: 'bench-broker', counter: 0 };
  const packet = (): Packet => ({ cmd: 'publish', topic: `${TOPIC_PREFIX}/phone/tasks`, payload: Buffer.from('{}'), qos: 1, retain: false, brokerId: broker.id, brokerCounter: ++broker.counter });
  const calls: [string, () => Promise<unknown>][] = [
    ['Aedes.createBroker (a node starting)', () => Aedes.createBroker({ persistence: stock as never })],
    // The calls below go to the persistence directly: its broker never started.
    ['outgoingEnqueueCombi (a task published)', () => stock.outgoingEnqueueCombi([{ clientId: 'phone', topic: `${TOPIC_PREFIX}/phone/tasks`, qos: 1 }], packet())],
    ['outgoingUpdate (a task sent)', () => stock.outgoingUpdate({ id: 'phone' }, { ...packet(), messageId: 1 })],
    ['storeRetained (presence published)', async () => stock.storeRetained(retainedPackets('phone')[0]!)],
    ['createRetainedStreamCombi (a SUBSCRIBE)', () => readAll(stock.createRetainedStreamCombi(retainedPackets('phone').map((p) => p.topic)))],
  ];
  const outcomes = await Promise.all(calls.map(([, call]) => bounded(call)));
  calls.forEach(([call], i) => row('a. stock aedes-persistence-redis', call, outcomes[i]!));
  // Disconnects its connection (the calls still waiting then fail).
  await bounded(() => stock.asyncPersistence.destroy());
  console.error = printError;

  // Ours: the node's Redis options (no offline queue), the sessions in memory.
  const redis = new Redis(`redis://127.0.0.1:${port}`, redisOptions());
  redis.on('error', () => {});
  let aedes: Aedes | undefined;
  row('b. ours: retained in Redis', 'Aedes.createBroker (a node starting)', await bounded(async () => {
    aedes = await Aedes.createBroker();
    shareRetainedMessages(aedes, redis, 'unreachable', new Metrics());
  }));
  const persistence = persistenceOf(aedes!);
  row('b. ours: retained in Redis', 'one QoS 1 task (sessions in memory)', await bounded(() => oneTask(aedes!, persistence, 'phone', 1)));
  row('b. ours: retained in Redis', 'storeRetained (presence published)', await bounded(async () => persistence.storeRetained(retainedPackets('phone')[0]!)));
  row('b. ours: retained in Redis', 'createRetainedStreamCombi (a SUBSCRIBE)', await bounded(() => readAll(persistence.createRetainedStreamCombi(retainedPackets('phone').map((p) => p.topic)))));
  await closeBroker(aedes!);
  redis.disconnect();
  return rows;
}

export async function brokerPersistence(): Promise<{ storms: Record<string, string | number>[]; tasks: Record<string, string | number>[]; unreachable: Record<string, string | number>[] }> {
  const prefix = benchRedisPrefix('persistence');
  try {
    const storms = await subscribeStorms(prefix);
    const tasks = await sessionTasks(prefix);
    const unreachable = await unreachableRedis();
    return { storms, tasks, unreachable };
  } finally {
    await dropRedisKeys(prefix);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { storms, tasks, unreachable } = await brokerPersistence();
  printTable(
    `Subscribe storm: N devices x 3 retained messages, N SUBSCRIBEs of 3 exact topics, ${CONCURRENCY} at a time (stopped after ${STORM_LIMIT_MS / 1000} s); wildcard: one SUBSCRIBE to ${TOPIC_PREFIX}/+/presence`,
    storms,
  );
  printTable(`One QoS 1 task to a persistent session in the persistence (enqueue, update, clear), ${TASKS} tasks`, tasks);
  printTable(`Redis unreachable (nothing listens on its port): each call waited for at most ${UNREACHABLE_WAIT_MS / 1000} s`, unreachable);
  process.stdout.write(`\nload average ${loadavg().map((n) => n.toFixed(2)).join(' ')}\n`);
  process.exit(0);
}
