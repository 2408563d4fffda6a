// A server started listening, as a promise: resolved once it listens, rejected with what kept it
// from listening. With the setting that chose the port, a port already taken or one that needs
// privileges fails with that setting named (errors.ts, describeEnvironmentError).
import type { Server } from 'node:net';
import { describeEnvironmentError } from './errors.ts';

export interface ListenAt {
  port: number;
  host: string;
  /** The queue of connections not yet accepted; Node's default when not said. */
  backlog?: number;
}

export function listen(server: Server, at: ListenAt, setting?: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: at.port, host: at.host, ...(at.backlog !== undefined ? { backlog: at.backlog } : {}) }, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    throw setting ? describeEnvironmentError(error, { port: [setting, at.port, at.host] }) : error;
  });
}
