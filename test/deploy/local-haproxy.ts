// The shipped deploy/cluster/haproxy.cfg, run by the real haproxy in front of gateway nodes on
// 127.0.0.1: only the addresses are changed (the listening ports, and each server's address and
// check port, which inside Docker are the node's host name and the fixed 3000 / 1883). Every
// balancing rule, check, timeout and retry is the file's own.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Gateway } from '../../src/gateway.ts';
import { freePort } from '../support/ports.ts';
import { HAPROXY_CFG } from './haproxy-config.ts';

export class LocalHaproxy {
  output = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly directory: string,
    readonly httpPort: number,
    readonly mqttPort: number,
  ) {}

  /** Starts haproxy with `nodes` (the cfg's server names: node-a, node-b) behind it; resolves once both ports accept connections. */
  static async start(nodes: Record<string, Gateway>): Promise<LocalHaproxy> {
    const [httpPort, mqttPort] = [await freePort(), await freePort()];
    const directory = mkdtempSync(join(tmpdir(), 'sgw-haproxy-'));
    const config = join(directory, 'haproxy.cfg');
    writeFileSync(config, localAddresses(readFileSync(HAPROXY_CFG, 'utf8'), nodes, httpPort, mqttPort));
    // -db: in the foreground, logging to its stdout, stopped by a signal to this one process.
    const child = spawn('haproxy', ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    const haproxy = new LocalHaproxy(child, directory, httpPort, mqttPort);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (haproxy.output += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (haproxy.output += chunk));
    const failed = new Promise<never>((_, reject) => {
      child.once('error', (error) => reject((error as NodeJS.ErrnoException).code === 'ENOENT' ? new Error('haproxy is not installed: apt-get install haproxy (.ci/run does)') : error));
      child.once('exit', (code) => reject(new Error(`haproxy exited with code ${code}:\n${haproxy.output}`)));
    });
    try {
      await Promise.race([failed, Promise.all([accepting(httpPort), accepting(mqttPort)])]);
    } catch (error) {
      await haproxy.stop();
      throw error;
    }
    failed.catch(() => undefined);
    return haproxy;
  }

  /** Whether HAProxy has logged `server` of `backend` DOWN (its health check failed `fall` times in a row). */
  markedDown(backend: string, server: string): boolean {
    return this.output.includes(`Server ${backend}/${server} is DOWN`);
  }

  get httpUrl(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  get mqttUrl(): string {
    return `mqtt://127.0.0.1:${this.mqttPort}`;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.directory, { recursive: true, force: true });
  }
}

function localAddresses(text: string, nodes: Record<string, Gateway>, httpPort: number, mqttPort: number): string {
  const node = (name: string) => {
    const gateway = nodes[name];
    if (!gateway) throw new Error(`haproxy.cfg names a server ${name} the test did not start`);
    return gateway;
  };
  return text
    .replace(/^(\s*bind\s+):3000\b/m, `$1127.0.0.1:${httpPort}`)
    .replace(/^(\s*bind\s+):1883\b/m, `$1127.0.0.1:${mqttPort}`)
    .replace(/^(\s*server\s+(\S+)\s+)\S+:3000\b/gm, (_, start: string, name: string) => `${start}127.0.0.1:${node(name).httpPort}`)
    .replace(/^(\s*server\s+(\S+)\s+)\S+:1883\b/gm, (_, start: string, name: string) => `${start}127.0.0.1:${node(name).mqttPort} port ${node(name).httpPort}`);
}

/** Resolves once something accepts TCP connections on the port; rejects after 10 s. */
async function accepting(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`haproxy is not listening on ${port} after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
