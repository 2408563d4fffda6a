// Shared pieces of the benchmark scripts: a fresh PostgreSQL database per run, a gateway on it,
// and latency statistics. Every benchmark targets 127.0.0.1, is bounded, and stops by itself.
import { randomBytes } from 'node:crypto';
import knexModule from 'knex';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';

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
