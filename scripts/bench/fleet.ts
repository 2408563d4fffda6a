// Fleet (issue 6, scenario 3): FLEET_DEVICES (default 10,000) simulated devices connect to the
// gateway, subscribe, announce presence, heartbeat and stay; then the gateway is restarted and
// all of them reconnect. Measures the time for all to be online, the reconnect storm, and the
// gateway's memory per connected device; the same client against the Mosquitto broker already
// running on 127.0.0.1:1883 is the baseline (time to connect all, memory per connection).
// Targets: all online in < 30 s, storm done in < 60 s, < 30 KB per connected device.
//
// The gateway runs as its own process (`node bin/sms-gateway.js serve`) on a fresh PostgreSQL
// database, so its memory is its own and a restart is a real one. Its log goes to a file, never
// to a pipe this busy process might read late (pino writes synchronously and would stall).
//
// Ports: mqtt.js's TCP transport does not pass `localAddress` through, so every connection comes
// from 127.0.0.1; 10,000 connections fit in the default ephemeral range (32768-60999). For much
// larger N, widen net.ipv4.ip_local_port_range.
//
// FLEET_DEVICES, FLEET_CONCURRENCY (connections opened at once, 300), FLEET_TIMEOUT_S (whole
// run, 480), FLEET_PHASE_LIMIT_S (each wait, 120), FLEET_MOSQUITTO_URL, FLEET_GATEWAY_NODE_ARGS
// (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the gateway), FLEET_SKIP_BASELINE=1 (no
// Mosquitto run, for profiling), FLEET_KEEP_LOGS=1 (keep the gateway's logs).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mqtt from 'mqtt';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { hashSecret, randomToken } from '../../src/shared/secrets.ts';
import { newObjectId } from '../../src/shared/object-id.ts';
import { closeDatabase, migrate, openDatabase, type Database } from '../../src/storage/database.ts';
import { deviceTopic } from '../../broker/topics.ts';
import { freshDatabase, printTable } from './support.ts';

const N = Number(process.env.FLEET_DEVICES ?? 10_000);
const CONCURRENCY = Number(process.env.FLEET_CONCURRENCY ?? 300);
const TIMEOUT_MS = Number(process.env.FLEET_TIMEOUT_S ?? 480) * 1000;
const PHASE_LIMIT_MS = Number(process.env.FLEET_PHASE_LIMIT_S ?? 120) * 1000;
const SETTLE_MS = 5_000;
const MOSQUITTO_URL = process.env.FLEET_MOSQUITTO_URL ?? 'mqtt://127.0.0.1:1883';
const GATEWAY_NODE_ARGS = (process.env.FLEET_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TARGETS = { onlineSeconds: 30, stormSeconds: 60, kbPerDevice: 30 };

interface Credentials {
  id: string;
  token: string;
}

interface Memory {
  rssKb: number;
  heapUsedKb?: number;
  externalKb?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const log = (message: string) => process.stderr.write(`[fleet ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

// Everything this run starts, for the cleanup (which also runs on the hard timeout and SIGINT).
const work = mkdtempSync(join(tmpdir(), 'sms-gateway-fleet-'));
const gateways: GatewayProcess[] = [];
const fleets: SimulatedDevice[][] = [];
let database: { url: string; drop: () => Promise<void> } | undefined;
let db: Database | undefined;
let mosquittoTopicsToClear: string[] = [];

// Loaded into the gateway process (node --import): on SIGUSR2 it collects garbage and writes
// its memory usage as one JSON line to stderr. The gateway's own code is untouched.
const probe = join(work, 'memory-probe.mjs');
writeFileSync(
  probe,
  `process.on('SIGUSR2', () => {
     if (typeof globalThis.gc === 'function') { globalThis.gc(); globalThis.gc(); }
     process.stderr.write(JSON.stringify({ benchMemory: process.memoryUsage() }) + '\\n');
   });\n`,
);

/** Reads the new complete lines of a file that another process appends to. */
class LogTail {
  private offset = 0;
  private partial = '';
  private readonly buffer = Buffer.alloc(1 << 20);

  constructor(private readonly path: string) {}

  lines(): string[] {
    const fd = openSync(this.path, 'r');
    try {
      let text = '';
      for (;;) {
        const read = readSync(fd, this.buffer, 0, this.buffer.length, this.offset);
        if (read === 0) break;
        this.offset += read;
        text += this.buffer.toString('utf8', 0, read);
      }
      const all = (this.partial + text).split('\n');
      this.partial = all.pop() ?? '';
      return all;
    } finally {
      closeSync(fd);
    }
  }
}

/** `node bin/sms-gateway.js serve` in its own process, its stdout and stderr in files. */
class GatewayProcess {
  readonly exited: Promise<number | null>;
  private readonly out: LogTail;
  private readonly err: LogTail;
  readonly counts = { warn: 0, error: 0, connected: 0 };
  private readonly problems: string[] = [];

  private constructor(
    readonly child: ChildProcess,
    readonly logPath: string,
    errPath: string,
  ) {
    this.out = new LogTail(logPath);
    this.err = new LogTail(errPath);
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  }

  static start(run: number, env: Record<string, string>): GatewayProcess {
    const logPath = join(work, `gateway-${run}.log`);
    const errPath = join(work, `gateway-${run}.err`);
    const stdout = openSync(logPath, 'w');
    const stderr = openSync(errPath, 'w');
    const child = spawn(process.execPath, ['--expose-gc', `--import=${probe}`, ...GATEWAY_NODE_ARGS, 'bin/sms-gateway.js', 'serve'], {
      cwd: ROOT,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', stdout, stderr],
    });
    closeSync(stdout);
    closeSync(stderr);
    const gateway = new GatewayProcess(child, logPath, errPath);
    gateways.push(gateway);
    return gateway;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits for the "gateway listening" line; returns it (its `time` is the child's clock, ms). */
  async listening(limitMs = 60_000): Promise<{ port: number; mqttPort: number; time: number }> {
    const deadline = Date.now() + limitMs;
    while (Date.now() < deadline) {
      for (const line of this.scan()) {
        if (line.includes('"gateway listening"')) return JSON.parse(line) as { port: number; mqttPort: number; time: number };
      }
      if (!this.running) throw new Error(`the gateway exited before listening:\n${this.tail()}`);
      await sleep(5);
    }
    throw new Error(`the gateway did not listen within ${limitMs} ms:\n${this.tail()}`);
  }

  /** Memory after a full garbage collection: VmRSS from /proc, heap from the probe. */
  async memory(): Promise<Memory> {
    this.child.kill('SIGUSR2');
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      for (const line of this.err.lines()) {
        if (!line.startsWith('{"benchMemory"')) {
          if (line.trim()) this.note(`stderr: ${line}`);
          continue;
        }
        const usage = (JSON.parse(line) as { benchMemory: NodeJS.MemoryUsage }).benchMemory;
        log(`gateway memory: ${Object.entries(usage).map(([key, value]) => `${key} ${(value / 1048576).toFixed(1)} MB`).join(', ')}`);
        return { rssKb: vmRssKb(this.pid), heapUsedKb: usage.heapUsed / 1024, externalKb: usage.external / 1024 };
      }
      await sleep(20);
    }
    log('the gateway did not answer the memory probe; heap not measured');
    return { rssKb: vmRssKb(this.pid) };
  }

  /** SIGTERM, then waits for the exit; SIGKILL after limitMs. Returns milliseconds to exit. */
  async stop(limitMs = 60_000): Promise<number> {
    if (!this.running) return 0;
    const started = Date.now();
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      log(`the gateway did not stop within ${limitMs} ms: SIGKILL`);
      this.child.kill('SIGKILL');
    }, limitMs);
    await this.exited;
    clearTimeout(timer);
    this.scan();
    return Date.now() - started;
  }

  kill(): void {
    if (this.running) this.child.kill('SIGKILL');
  }

  /** Reads new log lines, counting per-device info lines and keeping warnings and errors. */
  private scan(): string[] {
    const lines = this.out.lines();
    for (const line of lines) {
      if (line.includes('"device connected"')) this.counts.connected++;
      else if (line.includes('"level":40')) {
        this.counts.warn++;
        this.note(line);
      } else if (line.includes('"level":50') || line.includes('"level":60')) {
        this.counts.error++;
        this.note(line);
      }
    }
    return lines;
  }

  private note(line: string): void {
    if (this.problems.length < 5) {
      this.problems.push(line);
      log(`gateway: ${line.slice(0, 400)}`);
    }
  }

  summary(): string {
    this.scan();
    return `${this.counts.connected} "device connected" lines, ${this.counts.warn} warnings, ${this.counts.error} errors (log: ${this.logPath})`;
  }

  private tail(): string {
    return [readFileSync(this.logPath, 'utf8'), readFileSync(this.logPath.replace(/\.log$/, '.err'), 'utf8')].join('\n').slice(-3000);
  }
}

function vmRssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]);
}

function mosquittoPid(): number | undefined {
  try {
    const pids = execFileSync('pgrep', ['-x', 'mosquitto'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
    return pids.length > 0 ? Number(pids[0]) : undefined;
  } catch {
    return undefined;
  }
}

/** N devices with random tokens, stored the way registration stores them (token hash only). */
async function registerDevices(database: Database, count: number): Promise<Credentials[]> {
  const accountId = randomUUID();
  await database('accounts').insert({ id: accountId, name: `bench-fleet-${accountId.slice(0, 8)}` });
  const credentials = Array.from({ length: count }, () => ({ id: randomUUID(), token: `sgd_${randomToken(32)}` }));
  const now = new Date();
  const rows = credentials.map((device, i) => ({
    id: device.id,
    object_id: newObjectId(now.getTime()),
    account_id: accountId,
    name: `fleet-${i + 1}`,
    token_hash: hashSecret(device.token),
    created_at: now,
    updated_at: now,
  }));
  await database.batchInsert('devices', rows, 1000);
  return credentials;
}

interface ConnectResult {
  devices: SimulatedDevice[];
  online: number;
  failed: number;
  /** Milliseconds from the first connect to the last device announced; undefined if not all did. */
  allOnlineMs: number | undefined;
  elapsedMs: number;
}

/**
 * Connects one SimulatedDevice per credential, CONCURRENCY at a time. A device is online once
 * connected, subscribed to tasks + settings, and its retained presence and heartbeat are
 * acknowledged (SimulatedDevice.connect resolves then). `onAnnounce` sees every announcement,
 * reconnections included.
 */
async function connectFleet(label: string, brokerUrl: string, credentials: Credentials[], onAnnounce: (index: number) => void): Promise<ConnectResult> {
  const devices: SimulatedDevice[] = [];
  fleets.push(devices);
  let next = 0;
  let online = 0;
  let failed = 0;
  let stopped = false;
  const started = Date.now();
  let lastOnline = started;
  const worker = async () => {
    while (!stopped && next < credentials.length) {
      const index = next++;
      const { id, token } = credentials[index]!;
      const device = new SimulatedDevice({
        brokerUrl,
        deviceId: id,
        token,
        name: `fleet-${index + 1}`,
        // Phones back off with jitter; a fixed period would make every retry a synchronized wave.
        reconnectPeriodMs: 500 + Math.floor(Math.random() * 1000),
        heartbeatIntervalMs: 60_000,
        keepaliveSeconds: 60,
      });
      device.on('connected', () => onAnnounce(index));
      devices.push(device);
      for (let attempt = 1; ; attempt++) {
        try {
          await device.connect();
          online++;
          lastOnline = Date.now();
          break;
        } catch (error) {
          if (attempt >= 3 || stopped) {
            failed++;
            if (failed <= 5) log(`${label}: device ${index} failed to connect: ${(error as Error).message}`);
            break;
          }
          await sleep(200 * attempt);
        }
      }
    }
  };
  const progress = setInterval(() => log(`${label}: ${online}/${credentials.length} online`), 5_000);
  const deadline = sleep(PHASE_LIMIT_MS).then(() => 'deadline' as const);
  const outcome = await Promise.race([Promise.all(Array.from({ length: Math.min(CONCURRENCY, credentials.length) }, worker)), deadline]);
  stopped = true;
  clearInterval(progress);
  if (outcome === 'deadline') log(`${label}: phase limit of ${PHASE_LIMIT_MS / 1000} s reached with ${online}/${credentials.length} online`);
  const all = online === credentials.length;
  return { devices, online, failed, allOnlineMs: all ? lastOnline - started : undefined, elapsedMs: Date.now() - started };
}

async function stopFleet(devices: SimulatedDevice[], graceful: boolean): Promise<void> {
  const stops = devices.map((device) => (graceful ? device.stop() : device.kill()).catch(() => {}));
  await Promise.race([Promise.all(stops), sleep(20_000)]);
  devices.length = 0;
}

/** Removes the retained messages the baseline left in Mosquitto (it persists them). */
async function clearMosquittoRetained(): Promise<void> {
  if (mosquittoTopicsToClear.length === 0) return;
  const topics = mosquittoTopicsToClear;
  mosquittoTopicsToClear = [];
  const client = await mqtt.connectAsync(MOSQUITTO_URL, { clientId: `fleet-cleanup-${randomUUID()}`, reconnectPeriod: 0, connectTimeout: 5_000 });
  try {
    for (let i = 0; i < topics.length; i += 500) {
      await Promise.all(topics.slice(i, i + 500).map((topic) => client.publishAsync(topic, '', { qos: 1, retain: true })));
    }
  } finally {
    await client.endAsync();
  }
}

let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const devices of fleets) await stopFleet(devices, false);
    for (const gateway of gateways) gateway.kill();
    await Promise.all(gateways.map((gateway) => Promise.race([gateway.exited, sleep(5_000)])));
    await clearMosquittoRetained().catch((error: unknown) => log(`could not clear Mosquitto's retained messages: ${(error as Error).message}`));
    if (db) await closeDatabase(db).catch(() => {});
    if (database) await database.drop().catch((error: unknown) => log(`could not drop ${database?.url}: ${(error as Error).message}`));
    if (!process.env.FLEET_KEEP_LOGS) rmSync(work, { recursive: true, force: true });
  })();
  return cleaning;
}

const hardTimeout = setTimeout(() => {
  log(`hard timeout of ${TIMEOUT_MS / 1000} s: cleaning up and exiting`);
  void cleanup().finally(() => process.exit(2));
}, TIMEOUT_MS);
process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));

const kb = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(1));
const mb = (kbValue: number | undefined) => (kbValue === undefined ? 'n/a' : (kbValue / 1024).toFixed(1));
const seconds = (ms: number | undefined) => (ms === undefined ? 'not all' : (ms / 1000).toFixed(2));
const verdict = (value: number | undefined, target: number) => (value === undefined ? 'MISSED' : value < target ? 'met' : 'MISSED');

let exitCode = 0;
try {
  // 1. A fresh database with N devices, written directly (N HTTP registrations would dominate).
  database = await freshDatabase('fleet');
  db = await openDatabase({ databaseUrl: database.url, dataDir: join(work, 'unused'), poolMax: 2 });
  await migrate(db);
  const registerStarted = Date.now();
  const credentials = await registerDevices(db, N);
  log(`registered ${N} devices in ${((Date.now() - registerStarted) / 1000).toFixed(1)} s`);

  // 2. The gateway, idle: memory before.
  const first = GatewayProcess.start(1, { DATABASE_URL: database.url, MQTT_PORT: '0' });
  const listening = await first.listening();
  const brokerUrl = `mqtt://127.0.0.1:${listening.mqttPort}`;
  log(`gateway pid ${first.pid} listening: http ${listening.port}, mqtt ${listening.mqttPort}`);
  await sleep(SETTLE_MS);
  const ourBefore = await first.memory();

  // 3. N devices online.
  let restarted = false;
  let reannounced = 0;
  let lastReannounce = 0;
  const seenAgain = new Uint8Array(N);
  const ours = await connectFleet('gateway', brokerUrl, credentials, (index) => {
    if (!restarted || seenAgain[index]) return;
    seenAgain[index] = 1;
    reannounced++;
    lastReannounce = Date.now();
  });
  log(`gateway: ${ours.online}/${N} online in ${seconds(ours.allOnlineMs ?? ours.elapsedMs)} s`);
  await sleep(SETTLE_MS);
  const ourAfter = await first.memory();
  const ourRssPerDevice = ours.online ? (ourAfter.rssKb - ourBefore.rssKb) / ours.online : undefined;
  const ourHeapPerDevice = ours.online && ourAfter.heapUsedKb !== undefined && ourBefore.heapUsedKb !== undefined
    ? (ourAfter.heapUsedKb - ourBefore.heapUsedKb) / ours.online
    : undefined;
  log(`gateway: ${first.summary()}`);

  // 4. Restart on the same database and MQTT port; the devices reconnect by themselves.
  const stopMs = await first.stop();
  // Counted from here: while the old gateway drains it may still accept a reconnection.
  restarted = true;
  log(`gateway stopped in ${(stopMs / 1000).toFixed(2)} s`);
  const second = GatewayProcess.start(2, { DATABASE_URL: database.url, MQTT_PORT: String(listening.mqttPort) });
  const relisten = await second.listening();
  log(`gateway pid ${second.pid} listening again`);
  const stormDeadline = Date.now() + PHASE_LIMIT_MS;
  for (let tick = 1; reannounced < ours.online && Date.now() < stormDeadline; tick++) {
    await sleep(100);
    if (tick % 50 === 0) log(`storm: ${reannounced}/${ours.online} re-announced`);
  }
  const stormMs = reannounced === ours.online ? lastReannounce - relisten.time : undefined;
  log(`storm: ${reannounced}/${ours.online} re-announced ${stormMs === undefined ? 'before the phase limit' : `in ${seconds(stormMs)} s`}`);
  await sleep(SETTLE_MS);
  const afterStorm = await second.memory();
  log(`gateway after restart: ${second.summary()}`);
  await stopFleet(ours.devices, true);
  await second.stop();

  // 5. Baseline: the same client code against Mosquitto, same N.
  const pid = process.env.FLEET_SKIP_BASELINE ? undefined : mosquittoPid();
  let mosq: ConnectResult | undefined;
  let mosqBefore: number | undefined;
  let mosqAfter: number | undefined;
  if (pid === undefined) {
    log('no mosquitto process found (pgrep -x mosquitto): no baseline');
  } else {
    const baselineCredentials = Array.from({ length: N }, () => ({ id: randomUUID(), token: randomToken(32) }));
    mosquittoTopicsToClear = baselineCredentials.flatMap(({ id }) => [deviceTopic(id, 'presence'), deviceTopic(id, 'heartbeat')]);
    await sleep(1_000);
    mosqBefore = vmRssKb(pid);
    mosq = await connectFleet('mosquitto', MOSQUITTO_URL, baselineCredentials, () => {});
    log(`mosquitto: ${mosq.online}/${N} online in ${seconds(mosq.allOnlineMs ?? mosq.elapsedMs)} s`);
    await sleep(SETTLE_MS);
    mosqAfter = vmRssKb(pid);
    await stopFleet(mosq.devices, true);
    await clearMosquittoRetained();
  }
  const mosqPerConnection = mosq?.online && mosqAfter !== undefined && mosqBefore !== undefined ? (mosqAfter - mosqBefore) / mosq.online : undefined;

  const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? (a / b).toFixed(2) : 'n/a');
  printTable(`Fleet: ${N} devices (connect + subscribe tasks/settings + retained presence + retained heartbeat, QoS 1), ${CONCURRENCY} connects in flight, 127.0.0.1`, [
    { figure: 'devices online', gateway: `${ours.online}/${N}`, mosquitto: mosq ? `${mosq.online}/${N}` : 'n/a', 'gateway / mosquitto': '', target: '' },
    { figure: 'time until all online (s)', gateway: seconds(ours.allOnlineMs), mosquitto: seconds(mosq?.allOnlineMs), 'gateway / mosquitto': ratio(ours.allOnlineMs, mosq?.allOnlineMs), target: `< ${TARGETS.onlineSeconds} s: ${verdict(ours.allOnlineMs === undefined ? undefined : ours.allOnlineMs / 1000, TARGETS.onlineSeconds)}` },
    { figure: 'reconnect storm after restart (s)', gateway: seconds(stormMs), mosquitto: 'n/a', 'gateway / mosquitto': '', target: `< ${TARGETS.stormSeconds} s: ${verdict(stormMs === undefined ? undefined : stormMs / 1000, TARGETS.stormSeconds)}` },
    { figure: 'graceful stop with all connected (s)', gateway: seconds(stopMs), mosquitto: 'n/a', 'gateway / mosquitto': '', target: '' },
    { figure: 'RSS idle, before devices (MB)', gateway: mb(ourBefore.rssKb), mosquitto: mb(mosqBefore), 'gateway / mosquitto': '', target: '' },
    { figure: 'RSS with all connected (MB)', gateway: mb(ourAfter.rssKb), mosquitto: mb(mosqAfter), 'gateway / mosquitto': '', target: '' },
    { figure: 'RSS per connected device (KB)', gateway: kb(ourRssPerDevice), mosquitto: kb(mosqPerConnection), 'gateway / mosquitto': ratio(ourRssPerDevice, mosqPerConnection), target: `< ${TARGETS.kbPerDevice} KB: ${verdict(ourRssPerDevice, TARGETS.kbPerDevice)}` },
    { figure: 'JS heap per connected device (KB)', gateway: kb(ourHeapPerDevice), mosquitto: 'n/a', 'gateway / mosquitto': '', target: '' },
    { figure: 'RSS after the storm, restarted gateway (MB)', gateway: mb(afterStorm.rssKb), mosquitto: 'n/a', 'gateway / mosquitto': '', target: '' },
  ]);
  process.stdout.write(
    '\nMemory is measured after a full GC in the gateway (VmRSS from /proc, heap from process.memoryUsage); per device = (after - before) / online.\n' +
      'All connections come from 127.0.0.1 (mqtt.js does not pass localAddress); the storm is timed from the "gateway listening" line to the last device re-announced.\n',
  );
} catch (error) {
  exitCode = 1;
  log(`failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  clearTimeout(hardTimeout);
  await cleanup();
}
process.exit(exitCode);
