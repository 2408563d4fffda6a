// One real `sms-gateway serve` process, started the way an operator starts a node: its own
// environment, PORT=0 and MQTT_PORT=0, found ready by its "gateway listening" log line. Every log
// line it writes is kept (parsed), so that a test can wait for one ("Redis back") or count them,
// and so that a failed test can show what the node said.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '../../support/tenant.ts';
import { join } from 'node:path';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** A start on a loaded 2-core machine, or the first one after an edit (dist/ is rebuilt), takes a while. */
const START_TIMEOUT_MS = 60_000;
/** A node that ignores SIGTERM this long is killed: a test never waits on a stuck drain. */
const STOP_GRACE_MS = 10_000;

export type LogLine = Record<string, unknown> & { msg?: string };

/** Every child still running, so that they can be killed even if mocha exits without its after hooks. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export class GatewayNode extends EventEmitter<{ line: [line: LogLine] }> {
  readonly lines: LogLine[] = [];
  /** What the process wrote that was not a JSON log line (a crash's stack trace). */
  readonly otherOutput: string[] = [];
  port = 0;
  mqttPort = 0;
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly nodeId: string,
    private readonly child: ChildProcess,
  ) {
    super();
    running.add(child);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        running.delete(child);
        resolve(code);
      }),
    );
    this.collect(child.stdout!);
    this.collect(child.stderr!);
  }

  /** Spawns `serve` with `env` (on top of this process's environment) and resolves once it listens (on PORT and MQTT_PORT if given). */
  static async start(nodeId: string, env: Record<string, string>): Promise<GatewayNode> {
    // The compiled command, as an operator runs it: a tsx start costs seconds of CPU per node, and
    // these tests start dozens of nodes on two cores beside the rest of the suite.
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'sms-gateway.js'), 'serve'], {
      cwd: REPO_ROOT,
      // Free ports unless `env` names them (a node restarted where its phones expect it).
      env: { ...process.env, PORT: '0', MQTT_PORT: '0', ...env, NODE_ID: nodeId, HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const node = new GatewayNode(nodeId, child);
    try {
      const listening = await node.nextLine((line) => line.msg === 'gateway listening', START_TIMEOUT_MS);
      node.port = listening.port as number;
      node.mqttPort = listening.mqttPort as number;
    } catch (error) {
      await node.kill();
      throw new Error(`${nodeId} did not start: ${(error as Error).message}\n${node.tail(20)}`);
    }
    return node;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get mqttUrl(): string {
    return `mqtt://127.0.0.1:${this.mqttPort}`;
  }

  /** The Extended API of this node with `key`. */
  api(key: string): ApiClient {
    return new ApiClient(`${this.baseUrl}/api/ext/v1`, key);
  }

  /** Log lines whose msg starts with `msg`. */
  count(msg: string): number {
    return this.lines.filter((line) => String(line.msg).startsWith(msg)).length;
  }

  /** Resolves with the first line (already written or to come) for which `accept` holds. */
  nextLine(accept: (line: LogLine) => boolean, timeoutMs: number, fromIndex = 0): Promise<LogLine> {
    const earlier = this.lines.slice(fromIndex).find(accept);
    if (earlier) return Promise.resolve(earlier);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`no such log line from ${this.nodeId} within ${timeoutMs} ms`)), timeoutMs);
      const onLine = (line: LogLine) => {
        if (accept(line)) finish(undefined, line);
      };
      const onExit = () => finish(new Error(`${this.nodeId} exited`));
      const finish = (error: Error | undefined, line?: LogLine) => {
        clearTimeout(timer);
        this.off('line', onLine);
        this.child.off('exit', onExit);
        if (error) reject(error);
        else resolve(line!);
      };
      this.on('line', onLine);
      this.child.once('exit', onExit);
    });
  }

  /** Resolves with the first line whose msg starts with `msg`, written after line `fromIndex`. */
  nextMessage(msg: string, timeoutMs: number, fromIndex = 0): Promise<LogLine> {
    return this.nextLine((line) => String(line.msg).startsWith(msg), timeoutMs, fromIndex);
  }

  /** kill -9: no drain, no DISCONNECT, no goodbye to Redis; resolves once the process is gone. */
  async kill(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM (a clean stop), SIGKILL if it takes longer than STOP_GRACE_MS. */
  async stop(): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  /** The last `count` things the node wrote, for a failed test's report. */
  tail(count: number): string {
    const lines = this.lines.slice(-count).map((line) => JSON.stringify(line));
    return [...lines, ...this.otherOutput.slice(-count)].map((line) => `  [${this.nodeId}] ${line}`).join('\n');
  }

  private collect(stream: NodeJS.ReadableStream): void {
    let buffer = '';
    stream.setEncoding('utf8');
    // Read to the end whatever the tests do: a child never blocks on a full pipe.
    stream.on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const text = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        let line: LogLine | undefined;
        try {
          line = JSON.parse(text) as LogLine;
        } catch {
          if (text.trim()) this.otherOutput.push(text);
          continue;
        }
        this.lines.push(line);
        this.emit('line', line);
      }
    });
  }
}
