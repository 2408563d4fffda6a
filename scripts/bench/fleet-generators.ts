// The fleet benchmarks' load generator in several processes (scripts/bench/fleet-worker.ts), each
// running a share of the simulated phones: one process may hold no more sockets than its
// open-file limit (20,000 on the machine these benchmarks were made on). The devices are dealt
// out in turn, and the connects in flight divided among the processes.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WorkerCommand, WorkerDevice, WorkerReport } from './fleet-worker.ts';
import { randomUUID } from 'node:crypto';
import { hashSecret, randomToken } from '../../src/common/secrets.ts';
import { newObjectId } from '../../src/common/object-id.ts';
import type { Database } from '../../src/storage/database.ts';

const WORKER = fileURLToPath(new URL('./fleet-worker.ts', import.meta.url));

export interface FleetConnectResult {
  online: number;
  failed: number;
  /** Milliseconds from the first connect to the last device online; undefined if not all came. */
  allOnlineMs: number | undefined;
  elapsedMs: number;
  /** CPU the generator processes spent on the phase. */
  generatorCpuMs: number;
}

/** Devices a generator process holds at most, with room for its own files. */
export const DEVICES_PER_PROCESS = 6_000;

export class FleetGenerators {
  private constructor(private readonly children: ChildProcess[]) {}

  /** Enough processes for `devices` (DEVICES_PER_PROCESS each), at least `minimum`. */
  static start(devices: number, minimum = 1): FleetGenerators {
    const count = Math.max(minimum, Math.ceil(devices / DEVICES_PER_PROCESS));
    const children = Array.from({ length: count }, () =>
      fork(WORKER, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
    );
    return new FleetGenerators(children);
  }

  get processes(): number {
    return this.children.length;
  }

  /** Connects the devices (dealt out to the processes) and waits for all, or the phase limit. */
  async connect(
    brokerUrl: string,
    devices: WorkerDevice[],
    options: { concurrency: number; phaseLimitMs: number; onProgress?: (online: number) => void },
  ): Promise<FleetConnectResult> {
    const shares = this.children.map((_, i) => devices.filter((__, index) => index % this.children.length === i));
    const online = this.children.map(() => 0);
    const started = Date.now();
    const progress = setInterval(() => options.onProgress?.(online.reduce((a, b) => a + b, 0)), 5_000);
    try {
      const results = await Promise.all(
        this.children.map((child, i) => {
          const concurrency = Math.max(1, Math.round(options.concurrency / this.children.length));
          const listen = (report: WorkerReport) => {
            if (report.type === 'progress') online[i] = report.online;
          };
          child.on('message', listen);
          return this.request(child, { type: 'connect', brokerUrl, devices: shares[i]!, concurrency, phaseLimitMs: options.phaseLimitMs }, 'connected', options.phaseLimitMs + 30_000).finally(() =>
            child.off('message', listen),
          );
        }),
      );
      const total = results.reduce((sum, result) => sum + result.online, 0);
      const failed = results.reduce((sum, result) => sum + result.failed, 0);
      const first = Math.min(...results.map((result) => result.firstConnectAt));
      const last = Math.max(...results.map((result) => result.lastOnlineAt));
      return {
        online: total,
        failed,
        allOnlineMs: total === devices.length ? last - first : undefined,
        elapsedMs: Date.now() - started,
        generatorCpuMs: results.reduce((sum, result) => sum + result.cpuMs, 0),
      };
    } finally {
      clearInterval(progress);
    }
  }

  /** The gateway is going away: re-announcements count from now on. Answers the devices online now. */
  async restarted(): Promise<number> {
    const answers = await Promise.all(this.children.map((child) => this.request(child, { type: 'restarted' }, 'restarted', 10_000)));
    return answers.reduce((sum, answer) => sum + answer.onlineAtRestart, 0);
  }

  /** Waits until `expected` devices re-announced or the limit passed; the count and the time of the last. */
  async storm(expected: number, limitMs: number, onProgress?: (reannounced: number) => void): Promise<{ reannounced: number; lastAt: number }> {
    const latest = this.children.map(() => ({ reannounced: 0, lastAt: 0 }));
    const listeners = this.children.map((child, i) => {
      const listen = (report: WorkerReport) => {
        if (report.type === 'storm') latest[i] = report;
      };
      child.on('message', listen);
      return listen;
    });
    const deadline = Date.now() + limitMs;
    const total = () => latest.reduce((sum, report) => sum + report.reannounced, 0);
    let lastProgress = Date.now();
    try {
      while (total() < expected && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (Date.now() - lastProgress >= 5_000) {
          lastProgress = Date.now();
          onProgress?.(total());
        }
      }
      return { reannounced: total(), lastAt: Math.max(...latest.map((report) => report.lastAt)) };
    } finally {
      this.children.forEach((child, i) => child.off('message', listeners[i]!));
    }
  }

  /** Devices connected now (a device still connecting when its phase ended may have come since). */
  async connected(): Promise<number> {
    const answers = await Promise.all(this.children.map((child) => this.request(child, { type: 'count' }, 'count', 10_000)));
    return answers.reduce((sum, answer) => sum + answer.connected, 0);
  }

  /** Ends every device's connection: DISCONNECT first (no will), or cut. */
  async stop(graceful: boolean): Promise<void> {
    await Promise.all(this.children.map((child) => this.request(child, { type: 'stop', graceful }, 'stopped', 30_000).catch(() => undefined)));
  }

  /** Ends the processes (their devices' connections go with them). */
  async close(): Promise<void> {
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            if (child.connected) child.send({ type: 'exit' } satisfies WorkerCommand);
            else child.kill('SIGKILL');
          }),
      ),
    );
  }

  private request<T extends WorkerReport['type']>(child: ChildProcess, command: WorkerCommand, answer: T, limitMs: number): Promise<Extract<WorkerReport, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`no "${answer}" from generator ${child.pid} within ${limitMs} ms`)), limitMs);
      const onMessage = (report: WorkerReport) => {
        if (report.type === answer) finish(undefined, report as Extract<WorkerReport, { type: T }>);
        else if (report.type === 'failure') finish(new Error(`generator ${child.pid}: ${report.message}`));
      };
      const onExit = () => finish(new Error(`generator ${child.pid} exited`));
      const finish = (error?: Error, report?: Extract<WorkerReport, { type: T }>) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (error) reject(error);
        else resolve(report!);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send(command);
    });
  }
}

/**
 * N devices with random tokens, stored the way registration stores them (token hash only), in a
 * new account or in `accountId`'s.
 */
export async function registerFleetDevices(database: Database, count: number, accountId?: string): Promise<{ id: string; token: string }[]> {
  if (!accountId) {
    accountId = randomUUID();
    await database('accounts').insert({ id: accountId, name: `bench-fleet-${accountId.slice(0, 8)}` });
  }
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
