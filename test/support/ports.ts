// A port of 127.0.0.1 that nothing listens on: a server listened on it a moment ago and closed.
// Tests use it for "nothing is there" (connection refused); drills and benchmarks for servers of
// their own.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
