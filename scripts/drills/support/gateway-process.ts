// Starts a drill's gateway in a child process (gateway-child.ts) and answers its address, one
// API key per tenant, the gateway's own event-loop delay, and a stop that waits for it to exit.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../../src/config.ts';

export interface GatewayProcess {
  apiUrl: string;
  port: number;
  keys: Record<string, string>;
  /** The SMTP listener's port, when the config turned it on. */
  smtpPort?: number;
  /** The longest the gateway's event loop was held since the last call (or since it started). */
  loopDelayMaxMs(): Promise<number>;
  stop(): Promise<void>;
}

// Migrating the embedded database takes most of a minute on a loaded 2-core machine (52 s at a
// load average of 18): a start is given up only well past that.
const STARTUP_TIMEOUT_MS = 180_000;

export async function startGatewayProcess(config: Partial<Config>, tenants: string[]): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./gateway-child.ts', import.meta.url))], {
    env: { ...process.env, DRILL_GATEWAY: JSON.stringify({ config, tenants }) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const nextMessage = <T>(timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the drill's gateway did not answer ${what} within ${timeoutMs / 1000} s`)), timeoutMs);
      child.once('message', (message) => {
        clearTimeout(timer);
        resolve(message as T);
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`the drill's gateway exited with code ${child.exitCode}`));
      });
    });
  const ready = await nextMessage<{ port: number; keys: Record<string, string>; smtpPort?: number }>(STARTUP_TIMEOUT_MS, 'its start');
  return {
    ...ready,
    apiUrl: `http://127.0.0.1:${ready.port}/api/ext/v1`,
    loopDelayMaxMs: async () => {
      const answer = nextMessage<{ loopDelayMaxMs: number }>(10_000, 'its loop delay');
      child.send('loop-delay');
      return (await answer).loopDelayMaxMs;
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
