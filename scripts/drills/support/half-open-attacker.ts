// The half-open attacker, run as a child process of the half-open drill so that its sockets use
// its own file descriptors, not the gateway's: it opens HALF_OPEN_CONNECTIONS connections to
// 127.0.0.1:HALF_OPEN_PORT from loopback addresses 127.0.1.1, 127.0.1.2... (PER_ADDRESS each), sends
// a request line and one header on each and nothing more, and opens a new one a second after
// the gateway closes one. Every second it prints a JSON line with what it holds; after
// HALF_OPEN_SECONDS it closes everything, prints a last line with "done": true, and exits.
// With HALF_OPEN_SILENT=1 it sends nothing at all, and HALF_OPEN_PORTS (a comma-separated list)
// spreads the connections over several listeners in turn: the silent-connections drill.
import { connect, type Socket } from 'node:net';

const ports = (process.env.HALF_OPEN_PORTS ?? process.env.HALF_OPEN_PORT ?? '').split(',').map(Number);
const silent = process.env.HALF_OPEN_SILENT === '1';
const wanted = Number(process.env.HALF_OPEN_CONNECTIONS);
const seconds = Number(process.env.HALF_OPEN_SECONDS);
const perAddress = Number(process.env.HALF_OPEN_PER_ADDRESS ?? 250);
/** Connections being set up at once: enough to fill the pool in seconds, few enough to keep the loop responsive. */
const CONNECTING_AT_ONCE = 500;
const REOPEN_AFTER_MS = 1_000;

const open = new Map<Socket, number>();
let connecting = 0;
let opened = 0;
let closedByGateway = 0;
let answered408 = 0;
let failedToConnect = 0;
/** The longest a connection of ours stayed open before the gateway closed it. */
let longestLivedMs = 0;
let running = true;
const waiting: number[] = Array.from({ length: wanted }, (_, i) => i);

function addressOf(slot: number): string {
  const index = Math.floor(slot / perAddress);
  return `127.0.${1 + Math.floor(index / 250)}.${1 + (index % 250)}`;
}

function pump(): void {
  while (running && connecting < CONNECTING_AT_ONCE && waiting.length > 0) openOne(waiting.shift()!);
}

function openOne(slot: number): void {
  connecting++;
  opened++;
  let connected = false;
  const socket = connect({ port: ports[slot % ports.length]!, host: '127.0.0.1', localAddress: addressOf(slot) }, () => {
    connected = true;
    connecting--;
    open.set(socket, Date.now());
    if (!silent) socket.write('GET /api/ext/v1/devices HTTP/1.1\r\nHost: gateway\r\n');
    pump();
  });
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    if (chunk.startsWith('HTTP/1.1 408')) answered408++;
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    if (!connected) {
      connecting--;
      failedToConnect++;
    }
    const since = open.get(socket);
    open.delete(socket);
    if (running) {
      if (since !== undefined) {
        closedByGateway++;
        longestLivedMs = Math.max(longestLivedMs, Date.now() - since);
      }
      setTimeout(() => {
        waiting.push(slot);
        pump();
      }, REOPEN_AFTER_MS);
    }
    pump();
  });
}

function report(done = false): void {
  const now = Date.now();
  let oldestMs = 0;
  for (const since of open.values()) oldestMs = Math.max(oldestMs, now - since);
  process.stdout.write(`${JSON.stringify({ done, open: open.size, opened, closedByGateway, answered408, failedToConnect, oldestOpenMs: oldestMs, longestLivedMs })}\n`);
}

const reporter = setInterval(() => report(), 1_000);
pump();
setTimeout(() => {
  report(true);
  running = false;
  clearInterval(reporter);
  for (const socket of open.keys()) socket.destroy();
  setTimeout(() => process.exit(0), 200);
}, seconds * 1000);
