// Fleet: FLEET_DEVICES (default 10,000) simulated devices connect to the gateway, subscribe,
// announce presence, heartbeat and stay; then the gateway is restarted and all of them reconnect
// by themselves. Measures the time for all to be online, the reconnect storm, and the gateway's
// memory per connected device. Baseline, with the same client code (SimulatedDevice) and the same
// N in the same run: a Mosquitto started fresh from the installed binary (time to connect all,
// memory per connection). Targets: all online in < 60 s, storm done in < 90 s, <= 12 KB of RSS per
// connected device.
//
// The gateway runs as its own process (`node dist/src/cli/index.js serve`, compiled once when the
// run starts, LOG_LEVEL=info) on a fresh PostgreSQL database, so its memory is its own and the
// restart is a real one. Devices are written straight into the database (token hashes as
// registration stores them). The gateway's log goes to a file, never to a pipe this busy process
// might read late. Memory: VmRSS from /proc after full GCs, and again after full GCs that also
// compact the heap, asked of the gateway through a small module loaded with --import (SIGUSR2),
// before the devices (after a warm-up of WARMUP devices, so one-time costs are not counted per
// device) and after all are online and idle.
//
// The phones run in several generator processes (fleet-generators.ts): a process holds at most
// as many sockets as its open-file limit allows. All connect from 127.0.0.1 to 127.0.0.1 (mqtt.js
// does not pass `localAddress`); up to about 28,000 fit the default ephemeral range (32768-60999).
// The gateway's own limit is the same: one process holds about 19,500 sockets under a limit of
// 20,000 open files, with room for PostgreSQL, Redis and its logs.
//
// FLEET_DEVICES, FLEET_CONCURRENCY (connects in flight in all, 300), FLEET_GENERATORS (processes at
// least, 2; one more per 6,000 devices), FLEET_TIMEOUT_S (whole run, 400), FLEET_PHASE_LIMIT_S
// (each connect phase, 90), FLEET_STORM_LIMIT_S (120), FLEET_SETTLE_S (5), FLEET_WARMUP (50),
// FLEET_GATEWAY_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the gateway),
// FLEET_SKIP_BASELINE=1 (no Mosquitto, for profiling), FLEET_RUNNING_MOSQUITTO=1 (also the one on
// FLEET_MOSQUITTO_URL, :1883), FLEET_KEEP_LOGS=1 (keep the gateway's logs).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mqtt from 'mqtt';
import { randomToken } from '../../src/common/secrets.ts';
import { closeDatabase, migrate, openDatabase, type Database } from '../../src/storage/database.ts';
import { deviceTopic } from '../../broker/topics.ts';
import { freePort, freshDatabase, printTable } from './support.ts';
import { FleetGenerators, registerFleetDevices, type FleetConnectResult } from './fleet-generators.ts';

const N = Number(process.env.FLEET_DEVICES ?? 10_000);
const CONCURRENCY = Number(process.env.FLEET_CONCURRENCY ?? 300);
// Below the 420 s that `npm run bench` allows this scenario, so that it always cleans up itself.
const TIMEOUT_MS = Number(process.env.FLEET_TIMEOUT_S ?? 400) * 1000;
const PHASE_LIMIT_MS = Number(process.env.FLEET_PHASE_LIMIT_S ?? 90) * 1000;
const SETTLE_MS = Number(process.env.FLEET_SETTLE_S ?? 5) * 1000;
/** Devices connected and stopped before "memory before", so one-time costs (JIT, mqtt-packet's
 * cache of packet-id buffers) are not counted per device. */
const WARMUP = Number(process.env.FLEET_WARMUP ?? 50);
const MOSQUITTO_URL = process.env.FLEET_MOSQUITTO_URL ?? 'mqtt://127.0.0.1:1883';
const GATEWAY_NODE_ARGS = (process.env.FLEET_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TARGETS = { onlineSeconds: 60, stormSeconds: 90, kbPerDevice: 12 };
/** How long the storm may take before it counts as not done (the target, with room to see how far it got). */
const STORM_LIMIT_MS = Number(process.env.FLEET_STORM_LIMIT_S ?? 120) * 1000;
/** Generator processes at least; more when the fleet needs them (fleet-generators.ts). */
const GENERATOR_PROCESSES = Number(process.env.FLEET_GENERATORS ?? 2);

interface Credentials {
  id: string;
  token: string;
}

interface Memory {
  /** After full GCs. */
  rssKb: number;
  /** After full GCs that also compact the heap. */
  compactedRssKb?: number;
  heapUsedKb?: number;
  externalKb?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const log = (message: string) => process.stderr.write(`[fleet ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

// Everything this run starts, for the cleanup (which also runs on the hard timeout and SIGINT).
const work = mkdtempSync(join(tmpdir(), 'sms-gateway-fleet-'));
const gateways: GatewayProcess[] = [];
let generators: FleetGenerators | undefined;
let database: { url: string; drop: () => Promise<void> } | undefined;
let db: Database | undefined;
let mosquittoTopicsToClear: string[] = [];
const mosquittos: ChildProcess[] = [];

// Loaded into the gateway process (node --import): on SIGUSR2 it collects garbage and writes
// its memory usage as one JSON line to stderr. The gateway's own code is untouched.
const probe = join(work, 'memory-probe.mjs');
writeFileSync(
  probe,
  `import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
   import { readFileSync } from 'node:fs';
   const rssKb = () => Number(/VmRSS:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
   process.on('SIGUSR2', () => {
     if (typeof globalThis.gc === 'function') { globalThis.gc(); globalThis.gc(); }
     const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, [s.space_size, s.space_used_size]]));
     const usage = process.memoryUsage();
     const plainRssKb = rssKb();
     // The same after full GCs that also compact (move live objects off sparse pages and give the
     // empty pages back), as V8's memory reducer does to an idle process in time.
     let compactedRssKb;
     if (typeof globalThis.gc === 'function') {
       setFlagsFromString('--compact-on-every-full-gc');
       globalThis.gc(); globalThis.gc();
       setFlagsFromString('--no-compact-on-every-full-gc');
       compactedRssKb = rssKb();
     }
     process.stderr.write(JSON.stringify({ benchMemory: usage, spaces, plainRssKb, compactedRssKb, compactedHeapTotal: process.memoryUsage().heapTotal }) + '\\n');
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
    const child = spawn(process.execPath, ['--expose-gc', `--import=${probe}`, ...GATEWAY_NODE_ARGS, 'dist/src/cli/index.js', 'serve'], {
      cwd: ROOT,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        // Every simulated phone connects from 127.0.0.1: lift the per-address cap meant for NAT,
        // and the cap in all, which is half the open-file limit by default.
        MQTT_MAX_CONNECTIONS_PER_ADDRESS: String(N + 1_000),
        MQTT_MAX_CONNECTIONS: String(N + 1_000),
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
        const { benchMemory: usage, spaces, plainRssKb, compactedRssKb, compactedHeapTotal } = JSON.parse(line) as {
          benchMemory: NodeJS.MemoryUsage;
          spaces: Record<string, [number, number]>;
          plainRssKb: number;
          compactedRssKb?: number;
          compactedHeapTotal?: number;
        };
        const inMb = (bytes: number) => (bytes / 1048576).toFixed(1);
        log(`gateway memory: ${Object.entries(usage).map(([key, value]) => `${key} ${inMb(value)} MB`).join(', ')}`);
        log(`gateway heap spaces (size/used MB): ${Object.entries(spaces).map(([name, [size, used]]) => `${name} ${inMb(size)}/${inMb(used)}`).join(', ')}`);
        if (compactedRssKb !== undefined) log(`gateway after compacting GCs: rss ${(compactedRssKb / 1024).toFixed(1)} MB, heapTotal ${inMb(compactedHeapTotal ?? 0)} MB`);
        return { rssKb: plainRssKb, compactedRssKb, heapUsedKb: usage.heapUsed / 1024, externalKb: usage.external / 1024 };
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

/** Connects the devices through the generator processes, logging progress. */
function connectFleet(label: string, brokerUrl: string, credentials: Credentials[]): Promise<FleetConnectResult> {
  return generators!.connect(brokerUrl, credentials.map(({ id, token }, i) => ({ id, token, name: `fleet-${i + 1}` })), {
    concurrency: CONCURRENCY,
    phaseLimitMs: PHASE_LIMIT_MS,
    onProgress: (online) => log(`${label}: ${online}/${credentials.length} online`),
  });
}

/** Connects and stops the warm-up devices, then lets the broker settle. */
async function warmUp(label: string, brokerUrl: string, credentials: Credentials[]): Promise<void> {
  if (credentials.length > 0) {
    await connectFleet(`${label} warm-up`, brokerUrl, credentials);
    await generators!.stop(true);
  }
  await sleep(SETTLE_MS);
}

interface Baseline {
  result?: FleetConnectResult;
  beforeKb?: number;
  afterKb?: number;
  perConnectionKb?: number;
  note?: string;
}

/** Warm-up, memory before, N devices online, memory after: the same steps as for the gateway. */
async function mosquittoBaseline(label: string, url: string, pid: number, persistent: boolean): Promise<Baseline> {
  const credentials = Array.from({ length: N + WARMUP }, () => ({ id: randomUUID(), token: randomToken(32) }));
  if (persistent) mosquittoTopicsToClear = credentials.flatMap(({ id }) => [deviceTopic(id, 'presence'), deviceTopic(id, 'heartbeat')]);
  await warmUp(label, url, credentials.splice(N));
  const beforeKb = vmRssKb(pid);
  const result = await connectFleet(label, url, credentials);
  log(`${label}: ${result.online}/${N} online in ${seconds(result.allOnlineMs ?? result.elapsedMs)} s`);
  await sleep(SETTLE_MS);
  const afterKb = vmRssKb(pid);
  await generators!.stop(true);
  return { result, beforeKb, afterKb, perConnectionKb: result.online ? (afterKb - beforeKb) / result.online : undefined };
}

/** The broker already running on the machine (FLEET_MOSQUITTO_URL, found with pgrep). */
async function runningMosquittoBaseline(): Promise<Baseline> {
  const pid = mosquittoPid();
  if (pid === undefined) {
    log('no mosquitto process found (pgrep -x mosquitto): no baseline on :1883');
    return { note: 'not running' };
  }
  try {
    return await mosquittoBaseline('mosquitto :1883', MOSQUITTO_URL, pid, true);
  } finally {
    // It persists retained messages: take ours away again (after the devices left, so no will fires).
    await clearMosquittoRetained();
  }
}

/** A Mosquitto of our own, from the same binary, on a free port, without persistence. */
async function privateMosquittoBaseline(): Promise<Baseline> {
  const port = await freePort();
  const config = join(work, 'mosquitto.conf');
  writeFileSync(config, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest none\n`);
  const child = spawn('mosquitto', ['-c', config], { stdio: 'ignore' });
  mosquittos.push(child);
  const started = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(false));
    const deadline = Date.now() + 5_000;
    const attempt = () => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => (Date.now() < deadline && child.exitCode === null ? setTimeout(attempt, 50) : resolve(false)));
    };
    attempt();
  });
  if (!started || !child.pid) {
    log('could not start a private mosquitto (is the mosquitto binary installed?)');
    return { note: 'not started' };
  }
  try {
    return await mosquittoBaseline('mosquitto fresh', `mqtt://127.0.0.1:${port}`, child.pid, false);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(5_000)]);
  }
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
    await generators?.close();
    for (const gateway of gateways) gateway.kill();
    for (const child of mosquittos) if (child.exitCode === null) child.kill('SIGKILL');
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
  // The gateway runs from dist/, compiled once now: a source changed meanwhile must not make the
  // restart below compile first (bin/sms-gateway.js would), nor run other code than the first start.
  execFileSync(process.execPath, ['scripts/build.js', '--optional'], { cwd: ROOT, stdio: 'inherit' });
  generators = FleetGenerators.start(N + WARMUP, GENERATOR_PROCESSES);
  log(`load generator: ${generators.processes} processes`);

  // 1. A fresh database with N devices, written directly (N HTTP registrations would dominate).
  database = await freshDatabase('fleet');
  db = await openDatabase({ databaseUrl: database.url, dataDir: join(work, 'unused'), poolMax: 2 });
  await migrate(db);
  const registerStarted = Date.now();
  const registered = await registerFleetDevices(db, N + WARMUP);
  const credentials = registered.slice(0, N);
  log(`registered ${N} + ${WARMUP} warm-up devices in ${((Date.now() - registerStarted) / 1000).toFixed(1)} s`);

  // 2. The gateway, idle: memory before.
  const first = GatewayProcess.start(1, { DATABASE_URL: database.url, MQTT_PORT: '0' });
  const listening = await first.listening();
  const brokerUrl = `mqtt://127.0.0.1:${listening.mqttPort}`;
  log(`gateway pid ${first.pid} listening: http ${listening.port}, mqtt ${listening.mqttPort}`);
  await warmUp('gateway', brokerUrl, registered.slice(N));
  const ourBefore = await first.memory();

  // 3. N devices online.
  const ours = await connectFleet('gateway', brokerUrl, credentials);
  log(`gateway: ${ours.online}/${N} online in ${seconds(ours.allOnlineMs ?? ours.elapsedMs)} s`);
  await sleep(SETTLE_MS);
  const ourAfter = await first.memory();
  // Divided by the devices connected when memory was measured: some may have come after the phase ended.
  const measuredWith = await generators.connected();
  log(`gateway: ${measuredWith} devices connected when its memory was measured`);
  const perDevice = (after: number | undefined, before: number | undefined) => (measuredWith && after !== undefined && before !== undefined ? (after - before) / measuredWith : undefined);
  const ourRssPerDevice = perDevice(ourAfter.rssKb, ourBefore.rssKb);
  const ourCompactedPerDevice = perDevice(ourAfter.compactedRssKb, ourBefore.compactedRssKb);
  const ourHeapPerDevice = perDevice(ourAfter.heapUsedKb, ourBefore.heapUsedKb);
  log(`gateway: ${first.summary()}`);

  // 4. Restart on the same database and MQTT port; the devices reconnect by themselves.
  // A device connecting when the phase limit struck may still come online later: the storm waits
  // for the devices that were online when the gateway stopped, and counts only those.
  const stopping = first.stop();
  // Counted from here: while the old gateway drains it may still accept a reconnection.
  const onlineAtRestart = await generators.restarted();
  const stopMs = await stopping;
  log(`gateway stopped in ${(stopMs / 1000).toFixed(2)} s`);
  const second = GatewayProcess.start(2, { DATABASE_URL: database.url, MQTT_PORT: String(listening.mqttPort) });
  const relisten = await second.listening();
  log(`gateway pid ${second.pid} listening again`);
  const storm = await generators.storm(onlineAtRestart, STORM_LIMIT_MS, (count) => log(`storm: ${count}/${onlineAtRestart} re-announced`));
  const reannounced = storm.reannounced;
  const stormMs = reannounced === onlineAtRestart && onlineAtRestart === N ? storm.lastAt - relisten.time : undefined;
  log(`storm: ${reannounced}/${onlineAtRestart} re-announced ${stormMs === undefined ? 'before the phase limit' : `in ${seconds(stormMs)} s`}`);
  await sleep(SETTLE_MS);
  const afterStorm = await second.memory();
  log(`gateway after restart: ${second.summary()}`);
  await generators.stop(true);
  await second.stop();

  // 5. Baselines: the same client code against Mosquitto, same N. A Mosquitto started fresh from
  // the installed binary gives the clean figure, and the ratio is taken against it. The one
  // already running on :1883 (FLEET_RUNNING_MOSQUITTO=1) keeps the memory of earlier peaks (a C
  // broker's RSS never falls back), so after any earlier run its growth understates a connection.
  const fresh = process.env.FLEET_SKIP_BASELINE ? undefined : await privateMosquittoBaseline();
  const running = process.env.FLEET_SKIP_BASELINE || !process.env.FLEET_RUNNING_MOSQUITTO ? undefined : await runningMosquittoBaseline();
  const reference = fresh?.result ? fresh : running;

  const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? (a / b).toFixed(2) : 'n/a');
  const row = (figure: string, gateway: string, fromBaseline: (b: Baseline) => string, ratioText: string, target: string) => ({
    figure,
    gateway,
    'mosquitto (fresh)': fresh ? fromBaseline(fresh) : 'n/a',
    ...(running ? { 'mosquitto (:1883)': fromBaseline(running) } : {}),
    [`gateway / mosquitto (${reference === fresh ? 'fresh' : ':1883'})`]: ratioText,
    target,
  });
  const onlineMs = (b: Baseline) => b.result?.allOnlineMs;
  printTable(
    `Fleet: ${N} devices (connect + subscribe tasks/settings/revoke/ussd + retained presence + retained heartbeat, QoS 1), ${CONCURRENCY} connects in flight from ${generators.processes} processes, 127.0.0.1`,
    [
      row('devices online', `${ours.online}/${N}`, (b) => (b.result ? `${b.result.online}/${N}` : b.note ?? 'n/a'), '', ''),
      row('  connected when memory was measured', String(measuredWith), () => '', '', ''),
      row('time until all online (s)', seconds(ours.allOnlineMs), (b) => seconds(onlineMs(b)), ratio(ours.allOnlineMs, reference && onlineMs(reference)),
        `< ${TARGETS.onlineSeconds} s: ${verdict(ours.allOnlineMs === undefined ? undefined : ours.allOnlineMs / 1000, TARGETS.onlineSeconds)}`),
      row('load generator CPU per device (ms)', (ours.generatorCpuMs / Math.max(1, ours.online)).toFixed(2), (b) => (b.result ? (b.result.generatorCpuMs / Math.max(1, b.result.online)).toFixed(2) : 'n/a'), '', ''),
      row('devices back online after the restart', `${reannounced}/${onlineAtRestart}`, () => 'n/a', '', ''),
      row('reconnect storm after restart (s)', seconds(stormMs), () => 'n/a', '',
        `< ${TARGETS.stormSeconds} s: ${verdict(stormMs === undefined ? undefined : stormMs / 1000, TARGETS.stormSeconds)}`),
      row('graceful stop with all connected (s)', seconds(stopMs), () => 'n/a', '', ''),
      row('RSS idle, before devices (MB)', mb(ourBefore.rssKb), (b) => mb(b.beforeKb), '', ''),
      row('RSS with all connected (MB)', mb(ourAfter.rssKb), (b) => mb(b.afterKb), '', ''),
      row('RSS per connected device (KB)', kb(ourRssPerDevice), (b) => kb(b.perConnectionKb), ratio(ourRssPerDevice, reference?.perConnectionKb),
        `<= ${TARGETS.kbPerDevice} KB: ${verdict(ourRssPerDevice === undefined ? undefined : ourRssPerDevice - 1e-9, TARGETS.kbPerDevice)}`),
      row('  the same after compacting GCs (KB)', kb(ourCompactedPerDevice), () => 'n/a', ratio(ourCompactedPerDevice, reference?.perConnectionKb), ''),
      row('JS heap used per connected device (KB)', kb(ourHeapPerDevice), () => 'n/a', '', ''),
      row('RSS after the storm, restarted gateway (MB)', mb(afterStorm.rssKb), () => 'n/a', '', ''),
      row('  the same per device, against the first idle RSS (KB)', kb(reannounced ? (afterStorm.rssKb - ourBefore.rssKb) / reannounced : undefined), () => 'n/a', '', ''),
    ],
  );
  process.stdout.write(
    '\nMemory is measured after a full GC in the gateway (VmRSS from /proc, heap from process.memoryUsage); per device = (after - before) / devices connected then.\n' +
      '"After compacting GCs": the same once full GCs have also compacted the heap, as V8 does to an idle process in time.\n' +
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
