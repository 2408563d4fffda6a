// A real Kannel (Debian's bearerbox and smsbox) for tests, configured with the README's `smsc`
// group, pointed at a test gateway's SMPP port: everything on free ports of 127.0.0.1 in a
// temporary directory, both processes killed by stop() (and on the test process's exit).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from 'node:net';
import { freePort } from './ports.ts';

export const BEARERBOX = '/usr/sbin/bearerbox';
export const SMSBOX = '/usr/sbin/smsbox';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

/** The README's Kannel `smsc` group, as written there (the block that starts `group = smsc`). */
export function readmeSmscGroup(): string {
  const readme = readFileSync(README, 'utf8');
  const block = /```\n(group = smsc\n[\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no Kannel smsc group (a ``` block starting "group = smsc")');
  return block[1]!;
}

/** The README's group with the gateway's address and a real credential put in its lines. */
export function smscGroupFor(port: number, systemId: string, password: string): string {
  const values: Record<string, string> = { host: '127.0.0.1', port: String(port), 'smsc-username': systemId, 'smsc-password': password };
  return readmeSmscGroup().replace(/^([a-z-]+) = .*$/gm, (line, key: string) => (key in values ? `${key} = ${values[key]}` : line));
}

export interface KannelOptions {
  smscGroup: string;
  /** Where smsbox sends incoming SMS (an sms-service get-url, with Kannel's escapes). */
  moUrl: string;
}

export class Kannel {
  readonly username = 'tester';
  readonly password = 'kannel-test-1';
  private readonly processes: ChildProcess[] = [];
  private readonly killAll = () => this.kill();

  private constructor(
    readonly directory: string,
    readonly sendsmsPort: number,
  ) {
    process.once('exit', this.killAll);
  }

  static async start(options: KannelOptions): Promise<Kannel> {
    const directory = mkdtempSync(join(tmpdir(), 'kannel-test-'));
    const [adminPort, smsboxPort, sendsmsPort] = [await freePort(), await freePort(), await freePort()];
    const kannel = new Kannel(directory, sendsmsPort);
    const config = join(directory, 'kannel.conf');
    writeFileSync(
      config,
      [
        'group = core',
        `admin-port = ${adminPort}`,
        'admin-password = kannel-admin',
        'admin-allow-ip = 127.0.0.1',
        `smsbox-port = ${smsboxPort}`,
        'box-allow-ip = 127.0.0.1',
        'dlr-storage = internal',
        `log-file = "${join(directory, 'bearerbox.log')}"`,
        'log-level = 0',
        '',
        options.smscGroup.trim(),
        '',
        'group = smsbox',
        'bearerbox-host = 127.0.0.1',
        `bearerbox-port = ${smsboxPort}`,
        `sendsms-port = ${sendsmsPort}`,
        'sendsms-interface = 127.0.0.1',
        `log-file = "${join(directory, 'smsbox.log')}"`,
        'log-level = 0',
        '',
        'group = sendsms-user',
        `username = ${kannel.username}`,
        `password = ${kannel.password}`,
        '',
        'group = sms-service',
        'keyword = default',
        'catch-all = true',
        'max-messages = 0',
        `get-url = "${options.moUrl}"`,
        '',
      ].join('\n'),
    );
    kannel.spawn(BEARERBOX, config);
    // smsbox gives up at once when bearerbox is not there yet.
    await kannel.untilListening(smsboxPort, 20_000);
    kannel.spawn(SMSBOX, config);
    return kannel;
  }

  private spawn(binary: string, config: string): void {
    const child = spawn(binary, [config], { cwd: this.directory, stdio: ['ignore', 'ignore', 'ignore'] });
    child.on('error', () => undefined);
    child.unref();
    this.processes.push(child);
  }

  /** Resolves once something accepts connections on the port (bounded: a box that never starts fails the test with its log). */
  private async untilListening(port: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const open = await new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
      });
      if (open) return;
      if (Date.now() > deadline) {
        const logs = this.logs();
        await this.stop();
        throw new Error(`bearerbox never listened on ${port}\n${logs}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Sends an SMS through smsbox's sendsms HTTP interface; retried until smsbox listens (bounded). */
  async sendsms(parameters: Record<string, string>, timeoutMs = 20_000): Promise<{ status: number; body: string }> {
    const query = new URLSearchParams({ username: this.username, password: this.password, ...parameters });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const response = await fetch(`http://127.0.0.1:${this.sendsmsPort}/cgi-bin/sendsms?${query}`);
        return { status: response.status, body: await response.text() };
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`smsbox never answered on ${this.sendsmsPort}: ${String(error)}\n${this.logs()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /** bearerbox's and smsbox's logs, for a failure's message. */
  logs(): string {
    return ['bearerbox.log', 'smsbox.log']
      .map((file) => join(this.directory, file))
      .filter((file) => existsSync(file))
      .map((file) => `--- ${file}\n${readFileSync(file, 'utf8').split('\n').slice(-60).join('\n')}`)
      .join('\n');
  }

  private kill(): void {
    for (const child of this.processes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  /** Kills both boxes, waits for them to be gone, and removes the directory. */
  async stop(): Promise<void> {
    process.removeListener('exit', this.killAll);
    const exited = this.processes.map((child) =>
      child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve())),
    );
    this.kill();
    await Promise.all(exited);
    rmSync(this.directory, { recursive: true, force: true });
  }
}
