// A server started listening, as a promise: resolved once it listens, rejected with what kept it
// from listening. With the setting that chose the port, a port already taken or one that needs
// privileges fails with that setting named (errors.ts, describeEnvironmentError).
import type { Server } from 'node:net';
import { describeEnvironmentError } from './errors.ts';

/**
 * Connections the kernel may hold for a listener before the process accepts them. Node's default
 * (511) overflows when many clients connect at once: after a restart every phone of a fleet
 * reconnects within seconds, and while the event loop is busy with the first CONNECTs the kernel
 * drops the SYNs of the rest (and of health checks and API clients). Those retry a second or more
 * later, doubling, and a fleet then comes back in waves instead of at the rate the gateway can
 * take. Linux caps it at net.core.somaxconn (4096 on current kernels).
 */
export const LISTEN_BACKLOG = 4_096;

export interface ListenAt {
  port: number;
  host: string;
}

export function listen(server: Server, at: ListenAt, setting?: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: at.port, host: at.host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    throw setting ? describeEnvironmentError(error, { port: [setting, at.port, at.host] }) : error;
  });
}
