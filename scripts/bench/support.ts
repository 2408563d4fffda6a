// Shared pieces of the benchmark scripts: a fresh PostgreSQL database per run, a gateway on it,
// and latency statistics. Every benchmark targets 127.0.0.1, is bounded, and stops by itself.
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import knexModule from 'knex';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import { closeDatabase, migrate, openDatabase } from '../../src/storage/database.ts';
import { createServices } from '../../src/services.ts';

export const ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Creates a fresh database; returns its URL and a function that drops it. */
export async function freshDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `sms_gateway_bench_${label}_${randomBytes(3).toString('hex')}`;
  const admin = knexModule.knex({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  await admin.destroy();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = knexModule.knex({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
      await again.raw(`drop database if exists ${name} with (force)`);
      await again.destroy();
    },
  };
}

export async function startBenchGateway(databaseUrl: string, overrides: Partial<Config> = {}) {
  const config: Config = { ...loadConfig({}), port: 0, mqttPort: 0, host: '127.0.0.1', databaseUrl, logLevel: 'warn', ...overrides };
  const gateway = await Gateway.start(config, createLogger(config.logLevel));
  const account = await gateway.services.accounts.create(`bench-${randomBytes(3).toString('hex')}`);
  const { key } = await gateway.services.apiKeys.create(account.id, [...PERMISSIONS]);
  return { gateway, accountId: account.id, key, baseUrl: `http://127.0.0.1:${gateway.httpPort}` };
}

export interface LatencyStats {
  count: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export function stats(samplesMs: number[]): LatencyStats {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    count: sorted.length,
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1] ?? 0),
    mean: round(sorted.reduce((sum, n) => sum + n, 0) / Math.max(1, sorted.length)),
  };
}

/** Times `run` `count` times, one after the other; returns milliseconds per call. */
export async function timeSequential(count: number, run: (i: number) => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await run(i);
    samples.push(performance.now() - started);
  }
  return samples;
}

export function printTable(title: string, rows: Record<string, string | number>[]): void {
  process.stdout.write(`\n${title}\n`);
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => String(row[column] ?? '').length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join('  ');
  process.stdout.write(`${line(columns)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const row of rows) process.stdout.write(`${line(columns.map((column) => String(row[column] ?? '')))}\n`);
}

/** A whole number above zero from the environment variable `name`, or `fallback` when it is unset. */
export function positiveIntegerSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export { freePort } from '../../test/support/ports.ts';

/** A child process that prints one JSON line when it is ready; resolves with that line. */
export interface ReadyChild {
  child: ChildProcess;
  ready: Record<string, unknown>;
  stop: () => Promise<void>;
}

export async function spawnReady(
  args: string[],
  env: Record<string, string>,
  isReady: (line: Record<string, unknown>) => boolean,
  timeoutMs = 60_000,
  nodeArgs: string[] = [],
): Promise<ReadyChild> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} not ready within ${timeoutMs} ms`)), timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if (isReady(parsed)) {
            clearTimeout(timer);
            resolve(parsed);
          }
        } catch {
          // not a JSON line
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before it was ready`)));
  });
  // Keep draining stdout so the child never blocks on a full pipe.
  child.stdout!.resume();
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  return { child, ready, stop };
}

/** The METRICS_TOKEN of the gateways the benchmarks run: /metrics is served only to a scrape carrying it. */
export const BENCH_METRICS_TOKEN = 'bench-metrics-token-of-the-runs';

/** The headers of a scrape of /metrics on a gateway spawnGateway ran. */
export const METRICS_SCRAPE_HEADERS = { authorization: `Bearer ${BENCH_METRICS_TOKEN}` };

/** Runs the real gateway (`sms-gateway serve`) in its own process on a PostgreSQL database. */
export async function spawnGateway(
  databaseUrl: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = process.env.BENCH_GATEWAY_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
): Promise<ReadyChild & { port: number; mqttPort: number }> {
  const gateway = await spawnReady(
    ['src/cli/index.ts', 'serve'],
    { DATABASE_URL: databaseUrl, PORT: '0', MQTT_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', METRICS_TOKEN: BENCH_METRICS_TOKEN, ...env },
    (line) => line.msg === 'gateway listening',
    60_000,
    nodeArgs,
  );
  return { ...gateway, port: gateway.ready.port as number, mqttPort: gateway.ready.mqttPort as number };
}

export function ratio(value: number, baseline: number): string {
  return baseline ? (value / baseline).toFixed(2) : 'n/a';
}

/** An account, a key with every permission and `deviceCount` registered devices, made directly on the database. */
export async function prepareTenant(databaseUrl: string, deviceCount: number) {
  const config = { ...loadConfig({}), databaseUrl, logLevel: 'warn' as const };
  const db = await openDatabase({ databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(db);
    const services = createServices(config, db, createLogger('warn'));
    const account = await services.accounts.create(`bench-${randomBytes(3).toString('hex')}`);
    const { key } = await services.apiKeys.create(account.id, [...PERMISSIONS]);
    const devices = [];
    for (let i = 0; i < deviceCount; i++) {
      const { device, token } = await services.devices.register(account.id, `bench-phone-${i + 1}`);
      devices.push({ id: device.id, token });
    }
    return { accountId: account.id, key, devices };
  } finally {
    await closeDatabase(db);
  }
}

// Helpers added with the pacing and failover benchmarks.
import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (user + system, ms) a process used so far, read from /proc (Linux); undefined elsewhere. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, inside parentheses): utime is the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (ms) used so far by each live process whose command name is `name` (such as postgres)
 * and, if given, whose command line contains `commandLineHas` (a PostgreSQL backend shows its
 * database there), by process id, from /proc. A process that exits takes its CPU time with it:
 * sample often and keep the last figure of each pid (see CpuOfProcesses).
 */
export function commandCpuByPid(name: string, commandLineHas?: string): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== name) continue;
      if (commandLineHas && !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(commandLineHas)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu.set(Number(entry), ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
    } catch {
      // gone meanwhile
    }
  }
  return cpu;
}

/** CPU time of a changing set of processes (such as the PostgreSQL backends of one database), sampled every `everyMs`. */
export class CpuOfProcesses {
  private readonly last = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly name: string, private readonly commandLineHas?: string, everyMs = 500) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  /** CPU ms used by every matching process seen so far (up to its last sample). */
  totalMs(): number {
    this.sample();
    let total = 0;
    for (const ms of this.last.values()) total += ms;
    return total;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    for (const [pid, ms] of commandCpuByPid(this.name, this.commandLineHas)) this.last.set(pid, ms);
  }
}

/** Clock ticks per second of /proc's CPU times (USER_HZ): 100 on Linux on every common architecture. */
const CLOCK_TICKS = 100;

/** PATCH /api/ext/v1/devices/{id}/settings; throws unless it answers 200. */
export async function patchDeviceSettings(baseUrl: string, key: string, deviceId: string, settings: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${baseUrl}/api/ext/v1/devices/${deviceId}/settings`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(settings),
  });
  if (response.status !== 200) throw new Error(`settings of ${deviceId} not changed: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

/**
 * Lifts the pacing defaults of bench devices (send window 5, 20 a minute, 300 an hour, 2,000 a
 * day): the largest window and no rate limits, so that a benchmark measures the gateway, not a
 * real SIM's protection.
 */
export async function liftDeviceLimits(baseUrl: string, key: string, deviceIds: string[]): Promise<void> {
  for (const id of deviceIds) {
    await patchDeviceSettings(baseUrl, key, id, { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } });
  }
}
