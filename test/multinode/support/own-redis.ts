// A Redis server of the test's own, on a free port, that it may kill and start again: the
// machine's shared Redis serves other test runs and must never be stopped. Nothing is saved
// (no RDB, no AOF): a restarted server is empty, as after a Redis crash without persistence.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../support/ports.ts';

const READY_TIMEOUT_MS = 10_000;

/** Servers still running, killed if mocha exits without its after hooks. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export class OwnRedis {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  /** Starts redis-server on a free port of 127.0.0.1. */
  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server again on its port (after kill()); resolves once it accepts connections. */
  async restart(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    running.add(child);
    child.once('exit', () => running.delete(child));
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => fail(new Error(`redis-server not ready within ${READY_TIMEOUT_MS} ms:\n${output}`)), READY_TIMEOUT_MS);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) fail(undefined);
      };
      const onExit = (code: number | null) => fail(new Error(`redis-server exited (${code}):\n${output}`));
      const fail = (error: Error | undefined) => {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.off('exit', onExit);
        // Keep draining: a full pipe would stall the server.
        child.stdout!.resume();
        child.stderr!.resume();
        if (error) reject(error);
        else resolve();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', onExit);
    });
  }

  /** SIGKILL: every connection drops at once, nothing is flushed. Resolves once the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
