// The shipped deploy/cluster/haproxy.cfg, run by the real haproxy in front of gateway nodes on
// 127.0.0.1: only the addresses are changed (the listening ports, and each server's address and
// check port, which inside Docker are the node's host name and the fixed 3000 / 1883), and the
// certificate is one made for the test. Every balancing rule, check, timeout, retry and TLS
// setting is the file's own. Clients reach it through `fetch` and `ca`, which trust that certificate.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Gateway } from '../../src/gateway.ts';
import { freePort } from '../support/ports.ts';
import { Agent, fetch as undiciFetch, type RequestInit, type Response } from 'undici';
import { HAPROXY_CFG, haproxyCertificate, withCertificate } from './haproxy-config.ts';
import { eventually } from '../support/eventually.ts';

export class LocalHaproxy {
  output = '';
  private readonly dispatcher: Agent;

  private constructor(
    private readonly child: ChildProcess,
    private readonly directory: string,
    /** HTTPS (443 in the file). */
    readonly httpPort: number,
    /** MQTT over TLS (8883 in the file). */
    readonly mqttPort: number,
    /** Plain HTTP that redirects (80 in the file). */
    readonly redirectPort: number,
    /** The certificate HAProxy serves: the CA a client trusts it with. */
    readonly ca: string,
  ) {
    this.dispatcher = new Agent({ connect: { ca } });
  }

  /** Starts haproxy with `nodes` (the cfg's server names: node-a, node-b) behind it; resolves once both ports accept connections. */
  static async start(nodes: Record<string, Gateway>): Promise<LocalHaproxy> {
    const [httpPort, mqttPort, redirectPort] = [await freePort(), await freePort(), await freePort()];
    const directory = mkdtempSync(join(tmpdir(), 'sgw-haproxy-'));
    const certificate = haproxyCertificate(directory);
    const config = join(directory, 'haproxy.cfg');
    writeFileSync(config, withCertificate(localAddresses(readFileSync(HAPROXY_CFG, 'utf8'), nodes, { httpPort, mqttPort, redirectPort }), certificate.file));
    // -db: in the foreground, logging to its stdout, stopped by a signal to this one process.
    const child = spawn('haproxy', ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    const haproxy = new LocalHaproxy(child, directory, httpPort, mqttPort, redirectPort, certificate.pem);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (haproxy.output += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (haproxy.output += chunk));
    const failed = new Promise<never>((_, reject) => {
      child.once('error', (error) => reject((error as NodeJS.ErrnoException).code === 'ENOENT' ? new Error('haproxy is not installed: apt-get install haproxy (.ci/run does)') : error));
      child.once('exit', (code) => reject(new Error(`haproxy exited with code ${code}:\n${haproxy.output}`)));
    });
    try {
      await Promise.race([failed, Promise.all([accepting(httpPort), accepting(mqttPort), accepting(redirectPort)])]);
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
    return `https://127.0.0.1:${this.httpPort}`;
  }

  get mqttUrl(): string {
    return `mqtts://127.0.0.1:${this.mqttPort}`;
  }

  /** fetch, trusting the balancer's certificate. */
  fetch(url: string, init: RequestInit = {}): Promise<Response> {
    return undiciFetch(url, { ...init, dispatcher: this.dispatcher });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.directory, { recursive: true, force: true });
    await this.dispatcher.close();
  }
}

function localAddresses(text: string, nodes: Record<string, Gateway>, ports: { httpPort: number; mqttPort: number; redirectPort: number }): string {
  const node = (name: string) => {
    const gateway = nodes[name];
    if (!gateway) throw new Error(`haproxy.cfg names a server ${name} the test did not start`);
    return gateway;
  };
  return text
    .replace(/^(\s*bind\s+):443\b/m, `$1127.0.0.1:${ports.httpPort}`)
    .replace(/^(\s*bind\s+):8883\b/m, `$1127.0.0.1:${ports.mqttPort}`)
    .replace(/^(\s*bind\s+):80\b/m, `$1127.0.0.1:${ports.redirectPort}`)
    .replace(/^(\s*server\s+(\S+)\s+)\S+:3000\b/gm, (_, start: string, name: string) => `${start}127.0.0.1:${node(name).httpPort}`)
    .replace(/^(\s*server\s+(\S+)\s+)\S+:1883\b/gm, (_, start: string, name: string) => `${start}127.0.0.1:${node(name).mqttPort} port ${node(name).httpPort}`);
}

/** Resolves once something accepts TCP connections on the port; rejects after 10 s. */
async function accepting(port: number): Promise<void> {
  const open = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  await eventually(`haproxy listening on ${port}`, open, 10_000, 50);
}
