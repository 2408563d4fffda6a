// What the HTTP server allows a client before any request reaches the application: how long it
// may take to send its headers, how many connections it may hold, and how many the server holds
// at all. Without these, connections that send a request line and one header and then nothing
// stay open for good, and enough of them use up the process's file descriptors: then nothing
// works, health checks and the phones' MQTT connections included.
//
// - headers must arrive within HTTP_HEADERS_TIMEOUT (Node answers 408 and closes), checked every
//   second or so rather than Node's default 30 s, so a half-open connection lives seconds;
// - one client address holds at most HTTP_MAX_CONNECTIONS_PER_ADDRESS connections (counted as the
//   broker counts MQTT connections; a trusted load balancer is not capped, as every client comes
//   through it);
// - the server holds at most HTTP_MAX_CONNECTIONS; by default HTTP's share of the process's
//   connection budget (a quarter: src/common/file-descriptors.ts), so that the phones' MQTT
//   connections, SMPP and SMTP keep theirs whatever HTTP clients do;
// - of those, a quarter may be connections whose first request's headers have not arrived yet.
import type { IncomingMessage, Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { clientAddressKey, type TrustedProxies } from '../common/client-address.ts';
import type { Logger } from '../common/logger.ts';
import type { Metrics } from '../common/metrics.ts';
import type { HttpLimitsConfig } from '../config.ts';
import { ConnectionsPerAddress } from '../../broker/connection-limits.ts';
import { defaultConnectionBudget, listenerShares, openFileLimit, waitingPlaces } from '../common/file-descriptors.ts';
import { WaitingRoom, type WaitingPlace } from '../common/waiting-room.ts';

export { FD_RESERVE, openFileLimit } from '../common/file-descriptors.ts';
/**
 * The longest a whole request may take to arrive. API bodies have their own, shorter deadline
 * (HTTP_BODY_TIMEOUT); this bounds the phones' recording uploads, which may be large and slow.
 */
export const REQUEST_TIMEOUT_MS = 15 * 60_000;
/** How often Node looks for connections past their header or request timeout. */
const CHECK_EVERY_MS = 1_000;

/** Options for http.createServer / https.createServer: the timeouts of incoming requests. */
export function httpServerOptions(limits: HttpLimitsConfig): Pick<ServerOptions, 'headersTimeout' | 'requestTimeout' | 'connectionsCheckingInterval'> {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: Math.max(REQUEST_TIMEOUT_MS, limits.headersTimeoutMs),
    // A short header timeout (a test's) is only as good as the check that applies it.
    connectionsCheckingInterval: Math.max(10, Math.min(CHECK_EVERY_MS, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

/** Caps the server's connections, in all and per client address. Call once, before it listens. */
export function limitConnections(server: Server, limits: HttpLimitsConfig, proxies: TrustedProxies, observe: { metrics: Metrics; logger: Logger }): void {
  const { metrics, logger } = observe;
  const help = 'HTTP connections closed at once: the client address or the server had all the connections it may';
  metrics.declareCounter('http_connections_refused_total', help, ['reason']);
  server.maxConnections = limits.maxConnections ?? defaultMaxConnections();
  server.on('drop', () => metrics.count('http_connections_refused_total', help, { reason: 'max_connections' }));
  const perAddress = new ConnectionsPerAddress(limits.maxConnectionsPerAddress);
  // Until its first request's headers have arrived a connection waits in a room of a quarter of
  // the server's places, so that connections that never send them cannot fill the server: when
  // the room is full a newcomer pushes out the oldest waiting connection of the address holding
  // the most (src/common/waiting-room.ts). Connections that sent a request are never pushed out.
  const room = new WaitingRoom(waitingPlaces(server.maxConnections));
  const waiting = new WeakMap<Socket, WaitingPlace>();
  const identified = (request: IncomingMessage) => {
    // Over TLS the request's socket wraps the TCP connection the server accepted.
    const accepted = (request.socket as Socket & { _parent?: Socket })._parent ?? request.socket;
    waiting.get(accepted)?.leave();
  };
  server.prependListener('request', identified);
  // The broker's WebSocket server (MQTT at /mqtt) answers upgrades; this only notes the headers came.
  server.prependListener('upgrade', identified);
  // One line a minute at most, whatever the flood: the counter shows its size.
  let loggedAt = 0;
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (proxies.trusts(address)) return;
    if (!perAddress.admit(address)) {
      metrics.count('http_connections_refused_total', help, { reason: 'per_address' });
      if (Date.now() - loggedAt >= 60_000) {
        loggedAt = Date.now();
        logger.warn({ address, max: limits.maxConnectionsPerAddress }, 'HTTP connections refused: the client address holds all it may (HTTP_MAX_CONNECTIONS_PER_ADDRESS)');
      }
      socket.destroy();
      return;
    }
    socket.once('close', () => perAddress.release(address));
    const arrival = room.enter(clientAddressKey(address), () => socket.destroy());
    if ('refused' in arrival) {
      metrics.count('http_connections_refused_total', help, { reason: 'waiting_room_full' });
      return void socket.destroy();
    }
    if (arrival.displaced) metrics.count('http_connections_refused_total', help, { reason: 'pushed_out_before_request' });
    waiting.set(socket, arrival.place);
    socket.once('close', () => arrival.place.leave());
  });
}

/** HTTP's share of the process's connection budget: a quarter of it. */
export function defaultMaxConnections(fdLimit = openFileLimit()): number {
  return listenerShares(defaultConnectionBudget(fdLimit)).http;
}
