// A Redis Sentinel group of the test's own, on free ports of 127.0.0.1: a master, one replica and
// three sentinels (quorum 2), each a `redis-server` process (sentinels run as `redis-server
// <file> --sentinel`, which is all Debian's redis-sentinel package adds), their files in a
// temporary directory. Nothing is saved: the data lives in memory and in the replica's copy.
// Sentinel's timings are short, so that a killed master is replaced within seconds: down after
// 1 s without an answer, a failover abandoned after 5 s.
//
// stop() kills every process and removes the directory; an exit without it (mocha ending
// early, a drill interrupted) kills them too.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../support/ports.ts';

const READY_TIMEOUT_MS = 10_000;
/** The master group's name, as the nodes' REDIS_SENTINEL_NAME. */
const GROUP = 'gateway';
const DOWN_AFTER_MS = 1_000;
const FAILOVER_TIMEOUT_MS = 5_000;
const QUORUM = 2;
const SENTINELS = 3;

/** Processes still running, killed if the process exits without stop(). */
const running = new Set<ChildProcess>();
const directories = new Set<string>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
});

interface Server {
  port: number;
  child: ChildProcess;
}

export class SentinelGroup {
  readonly name = GROUP;
  private readonly servers: Server[] = [];
  private readonly sentinels: Server[] = [];

  private constructor(private readonly dir: string) {}

  /** Starts the master, its replica (in sync before the sentinels start) and the sentinels, and waits until the sentinels could fail over. */
  static async start(): Promise<SentinelGroup> {
    const group = new SentinelGroup(mkdtempSync(join(tmpdir(), 'sgw-sentinel-')));
    directories.add(group.dir);
    try {
      const master = await group.startServer([]);
      const replica = await group.startServer(['--replicaof', '127.0.0.1', String(master.port)]);
      await group.until('the replica in sync with the master', async () => String(await group.command(replica.port, 'info', 'replication')).includes('master_link_status:up'));
      for (let i = 0; i < SENTINELS; i++) group.sentinels.push(await group.startSentinel(i, master.port));
      // Sentinels find the replica in the master's INFO and each other on the master's hello
      // channel; only then can a quorum agree and a replica be promoted.
      await group.until('every sentinel knowing the replica and the other sentinels', async () => {
        for (const sentinel of group.sentinels) {
          const replicas = (await group.command(sentinel.port, 'sentinel', 'replicas', GROUP)) as unknown[];
          const others = (await group.command(sentinel.port, 'sentinel', 'sentinels', GROUP)) as unknown[];
          if (replicas.length < 1 || others.length < SENTINELS - 1) return false;
        }
        return true;
      });
      return group;
    } catch (error) {
      group.stop();
      throw error;
    }
  }

  /** REDIS_SENTINELS as the nodes are given it. */
  get sentinelList(): string {
    return this.sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(',');
  }

  /** The nodes' settings for this group (REDIS_URL unset: the two are never given together). */
  get env(): Record<string, string> {
    return { REDIS_URL: '', REDIS_SENTINELS: this.sentinelList, REDIS_SENTINEL_NAME: GROUP };
  }

  /** The port the sentinels name as the master's now. */
  async masterPort(): Promise<number> {
    const [, port] = (await this.command(this.sentinels[0]!.port, 'sentinel', 'get-master-addr-by-name', GROUP)) as [string, string];
    return Number(port);
  }

  /**
   * Listens for a sentinel's announcement of a new master (+switch-master): `switched` resolves
   * with the new master's port. Call before the failover is caused, so that it is not missed.
   */
  async nextSwitch(timeoutMs: number): Promise<{ switched: Promise<number> }> {
    const listener = new Redis({ host: '127.0.0.1', port: this.sentinels[0]!.port, lazyConnect: true, retryStrategy: () => null });
    listener.on('error', () => undefined);
    await listener.connect();
    await listener.subscribe('+switch-master');
    const switched = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`no +switch-master within ${timeoutMs} ms`)), timeoutMs);
      const finish = (error: Error | undefined, port?: number) => {
        clearTimeout(timer);
        listener.disconnect();
        if (error) reject(error);
        else resolve(port!);
      };
      // "<name> <old-ip> <old-port> <new-ip> <new-port>"
      listener.on('message', (_channel: string, message: string) => {
        const [name, , , , port] = message.split(' ');
        if (name === GROUP) finish(undefined, Number(port));
      });
    });
    return { switched };
  }

  /** SIGKILL of the server the sentinels name as master: its connections drop at once. Resolves once it is gone; answers its port. */
  async killMaster(): Promise<number> {
    const port = await this.masterPort();
    const server = this.servers.find((candidate) => candidate.port === port);
    if (!server) throw new Error(`the sentinels name 127.0.0.1:${port}, which is none of this group's servers`);
    await kill(server.child);
    return port;
  }

  /**
   * Starts a killed server again on its port, as a machine coming back with its old settings: an
   * empty master until the sentinels make it a replica of the promoted one. Resolves once it is
   * in sync as a replica, so that the group could fail over to it.
   */
  async restart(port: number): Promise<void> {
    const index = this.servers.findIndex((server) => server.port === port);
    if (index < 0) throw new Error(`127.0.0.1:${port} is none of this group's servers`);
    if (this.servers[index]!.child.exitCode === null && this.servers[index]!.child.signalCode === null) throw new Error(`127.0.0.1:${port} is still running`);
    this.servers.splice(index, 1);
    await this.startServer([], port);
    await this.until(`127.0.0.1:${port} in sync as a replica`, async () => {
      const replication = String(await this.command(port, 'info', 'replication'));
      return replication.includes('role:slave') && replication.includes('master_link_status:up');
    });
    await this.until(`the sentinels seeing 127.0.0.1:${port} as a replica`, async () => {
      for (const sentinel of this.sentinels) {
        const replicas = (await this.command(sentinel.port, 'sentinel', 'replicas', GROUP)) as string[][];
        const entry = replicas.map((fields) => Object.fromEntries(pairs(fields))).find((fields) => fields.port === String(port));
        if (!entry || /s_down|disconnected/.test(entry.flags ?? '') || entry['master-link-status'] !== 'ok') return false;
      }
      return true;
    });
  }

  /** Kills every process and removes the directory; safe to call twice. */
  stop(): void {
    for (const { child } of [...this.sentinels, ...this.servers]) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
    directories.delete(this.dir);
  }

  private async startServer(extra: string[], port?: number): Promise<Server> {
    port ??= await freePort();
    const child = await launch(['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir, ...extra], 'Ready to accept connections');
    const server = { port, child };
    this.servers.push(server);
    return server;
  }

  private async startSentinel(index: number, masterPort: number): Promise<Server> {
    const port = await freePort();
    // Sentinel writes what it learns back into its file: one file each, in the group's directory.
    const file = join(this.dir, `sentinel-${index}.conf`);
    writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${this.dir}`,
        `sentinel monitor ${GROUP} 127.0.0.1 ${masterPort} ${QUORUM}`,
        `sentinel down-after-milliseconds ${GROUP} ${DOWN_AFTER_MS}`,
        `sentinel failover-timeout ${GROUP} ${FAILOVER_TIMEOUT_MS}`,
        `sentinel parallel-syncs ${GROUP} 1`,
        '',
      ].join('\n'),
    );
    const child = await launch([file, '--sentinel'], `+monitor master ${GROUP}`);
    return { port, child };
  }

  /** One command on one server or sentinel, on a connection of its own. */
  private async command(port: number, name: string, ...args: string[]): Promise<unknown> {
    const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await client.call(name, ...args);
    } finally {
      client.disconnect();
    }
  }

  private async until(what: string, check: () => Promise<boolean>): Promise<void> {
    const deadline = performance.now() + READY_TIMEOUT_MS * 2;
    for (;;) {
      if (await check().catch(() => false)) return;
      if (performance.now() > deadline) throw new Error(`Sentinel group: not ${what} within ${READY_TIMEOUT_MS * 2} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A flat list of fields and values (as Sentinel answers) as pairs. */
function pairs(fields: string[]): [string, string][] {
  const result: [string, string][] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) result.push([fields[i]!, fields[i + 1]!]);
  return result;
}

/** Starts `redis-server args`; resolves once its output says `ready`. */
async function launch(args: string[], ready: string): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => done(new Error(`redis-server ${args.join(' ')} not ready within ${READY_TIMEOUT_MS} ms:\n${output}`)), READY_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(ready)) done(undefined);
    };
    const onExit = (code: number | null) => done(new Error(`redis-server ${args.join(' ')} exited (${code}):\n${output}`));
    const done = (error: Error | undefined) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      // Keep draining: a full pipe would stall the server.
      child.stdout!.resume();
      child.stderr!.resume();
      if (error) {
        child.kill('SIGKILL');
        reject(error);
      } else resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
