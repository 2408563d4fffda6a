// Shared pieces of the benchmark scripts: a fresh PostgreSQL database per run, a gateway on it,
// and latency statistics. Every benchmark targets 127.0.0.1, is bounded, and stops by itself.
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import knexModule from 'knex';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/shared/logger.ts';
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

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

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

/** Runs the real gateway (`sms-gateway serve`) in its own process on a PostgreSQL database. */
export async function spawnGateway(
  databaseUrl: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = process.env.BENCH_GATEWAY_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
): Promise<ReadyChild & { port: number; mqttPort: number }> {
  const gateway = await spawnReady(
    ['src/cli/index.ts', 'serve'],
    { DATABASE_URL: databaseUrl, PORT: '0', MQTT_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
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
