// Where devices connect: MQTT 3.1.1 over TCP on MQTT_PORT (behind a trusted balancer, with the
// PROXY protocol naming the client), over TLS on MQTTS_PORT, and over WebSocket at /mqtt on the
// HTTP server. Every connection is counted against MQTT_MAX_CONNECTIONS (in all) and
// MQTT_MAX_CONNECTIONS_PER_ADDRESS before Aedes sees a byte of it, and its packets are bounded by
// their headers (packet-guard.ts).
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type SecureContextOptions, type Server as TlsServer, type TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Aedes } from 'aedes';
import { WebSocketServer, createWebSocketStream } from 'ws';
import type { Metrics } from '../src/common/metrics.ts';
import type { MqttLimitsConfig } from '../src/config.ts';
import { clientAddressKey, type TrustedProxies } from '../src/common/client-address.ts';
import { describeEnvironmentError } from '../src/common/errors.ts';
import { readProxyHeader } from './proxy-protocol.ts';
import { guardIncoming, PacketSizeGuard } from './packet-guard.ts';
import { useParserBuffer } from './parser-buffer.ts';
import { ConnectionCap, ConnectionsPerAddress, defaultMaxMqttConnections } from './connection-limits.ts';
import type { ConnectionRefusal, RefusalLog } from './refusal-log.ts';
import type { DeviceSessions } from './sessions.ts';
import { WaitingRoom, type WaitingPlace } from '../src/common/waiting-room.ts';
import { waitingPlaces } from '../src/common/file-descriptors.ts';
import { listen } from '../src/common/listen.ts';

export const WEBSOCKET_PATH = '/mqtt';
/** A WebSocket message may carry this many packets of the largest size (see listen()). */
export const WEBSOCKET_MESSAGE_PACKETS = 4;

export interface ListenOptions {
  /** Plain MQTT over TCP; none: no plain listener (MQTT_PORT=off, with TLS). */
  port: number | undefined;
  host: string;
  /** MQTT over TLS on its own port, with this certificate (a CertificateReloader replaces it later). */
  tls?: { port: number; secureContext: SecureContextOptions };
  /** The HTTP server that also carries MQTT over WebSocket. */
  http: HttpServer;
  /** Packet sizes, CONNECT timeout and connections, in all and per address (MQTT_* variables). */
  limits: MqttLimitsConfig;
  /** Load balancers (TRUSTED_PROXIES) that name the client: PROXY protocol over TCP, X-Forwarded-For over WebSocket. */
  trustedProxies?: TrustedProxies | undefined;
}

export class Listeners {
  private tcp: Server | undefined;
  private mqtts: TlsServer | undefined;
  private ws: WebSocketServer | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly perAddress: ConnectionsPerAddress;
  private readonly total: ConnectionCap;
  /** Connections whose CONNECT has not come yet (src/common/waiting-room.ts): a quarter of the places. */
  private readonly waitingRoom: WaitingRoom;

  constructor(
    private readonly aedes: Aedes,
    private readonly sessions: DeviceSessions,
    private readonly refusals: RefusalLog,
    private readonly metrics: Metrics,
    private readonly options: ListenOptions,
  ) {
    this.perAddress = new ConnectionsPerAddress(options.limits.maxConnectionsPerAddress);
    this.total = new ConnectionCap(options.limits.maxConnections ?? defaultMaxMqttConnections());
    this.waitingRoom = new WaitingRoom(waitingPlaces(this.total.max));
  }

  /** The plain MQTT port as listening (port 0 picks one); none with MQTT_PORT=off. */
  get port(): number | undefined {
    return (this.tcp?.address() as AddressInfo | null)?.port;
  }

  /** The MQTT over TLS port as listening; none without TLS. */
  get tlsPort(): number | undefined {
    return (this.mqtts?.address() as AddressInfo | null)?.port;
  }

  /** The MQTTS listener, whose certificate a reload replaces; none without TLS. */
  get tlsServer(): TlsServer | undefined {
    return this.mqtts;
  }

  get listening(): boolean {
    const configured = [this.tcp, this.mqtts].filter((server) => server !== undefined);
    return configured.length > 0 && configured.every((server) => server.listening);
  }

  async listen(): Promise<void> {
    const { options } = this;
    if (options.port !== undefined) await this.listenPlain(options.port);
    if (options.tls) {
      await this.listenTls(options.tls).catch((error: unknown) => {
        throw describeEnvironmentError(error, { port: ['MQTTS_PORT', options.tls!.port, options.host] });
      });
    }
    // A message larger than this is refused by ws before it is buffered whole (close code 1009).
    // Room for a few packets: mqtt.js in a browser joins the packets written in one tick into
    // one message. Each packet in it is still held to its own limit by the packet guard.
    const maxMessageBytes = WEBSOCKET_MESSAGE_PACKETS * options.limits.maxPacketBytes;
    this.ws = new WebSocketServer({ server: options.http, path: WEBSOCKET_PATH, maxPayload: maxMessageBytes });
    this.ws.on('connection', (socket, request) => {
      const peer = request.socket.remoteAddress;
      const address = clientAddressKey(options.trustedProxies ? options.trustedProxies.clientOf(peer, request.headers['x-forwarded-for']) : peer);
      const place = this.admit(address, () => socket.terminate());
      if (!place) return void socket.terminate();
      socket.once('close', () => this.release(address, place));
      const refused = this.refusedOnce(address);
      socket.on('error', (error: Error & { code?: string }) => {
        if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') refused('packet_too_large');
      });
      this.handle(createWebSocketStream(socket), address, refused, place, request);
    });
  }

  /** Stops taking connections: WebSockets end now; `closeServers` after Aedes has closed its clients. */
  closeWebSockets(): void {
    this.ws?.close();
    for (const client of this.ws?.clients ?? []) client.terminate();
  }

  async closeServers(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all([this.tcp, this.mqtts].map((server) => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))));
  }

  private async listenPlain(port: number): Promise<void> {
    const { options } = this;
    // MQTT packets are small and latency matters: no Nagle delay (with the peer's delayed ACK it
    // held a report's acknowledgement back ~40 ms).
    const tcp = createServer({ noDelay: true }, (socket) => {
      const proxies = options.trustedProxies;
      if (!proxies?.trusts(socket.remoteAddress)) return this.accept(socket, socket.remoteAddress);
      // From a trusted load balancer: the client is named by the PROXY header before any MQTT.
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      readProxyHeader(socket, options.limits.connectTimeoutMs).then(
        ({ address, rest }) => {
          if (rest.length > 0) socket.unshift(rest);
          this.accept(socket, address ?? socket.remoteAddress);
          socket.resume();
        },
        () => {
          this.refusals.refused(clientAddressKey(socket.remoteAddress), 'bad_proxy_header');
          socket.destroy();
        },
      );
    });
    await listen(tcp, { port, host: options.host });
    this.tcp = tcp;
  }

  /**
   * MQTT over TLS. The client's place under MQTT_MAX_CONNECTIONS_PER_ADDRESS is taken when its TCP
   * connection arrives, before the handshake, so that handshakes cannot be used to get around the
   * cap. No PROXY header is read here: a balancer in front terminates TLS itself and sends plain
   * MQTT to MQTT_PORT (deploy/cluster/haproxy.cfg).
   */
  private async listenTls(tls: { port: number; secureContext: SecureContextOptions }): Promise<void> {
    const mqtts = createTlsServer({
      ...tls.secureContext,
      noDelay: true,
      // A connection that never completes its handshake holds a socket like one that never sends CONNECT.
      handshakeTimeout: this.options.limits.connectTimeoutMs,
    });
    // The handshake is part of the wait: the place taken with the TCP connection is left when the
    // CONNECT has come through the TLS socket that wraps it.
    const handshaking = new WeakMap<Socket, WaitingPlace>();
    mqtts.on('connection', (socket: Socket) => {
      const address = clientAddressKey(socket.remoteAddress);
      const place = this.admit(address, () => socket.destroy());
      if (!place) return void socket.destroy();
      handshaking.set(socket, place);
      this.sockets.add(socket);
      socket.once('close', () => {
        this.sockets.delete(socket);
        this.release(address, place);
      });
    });
    mqtts.on('secureConnection', (socket: TLSSocket) => {
      const address = clientAddressKey(socket.remoteAddress);
      const accepted = (socket as TLSSocket & { _parent?: Socket })._parent;
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      this.handle(socket, address, this.refusedOnce(address), (accepted && handshaking.get(accepted)) || undefined);
    });
    // A failed handshake (a client that does not trust the certificate, a scanner, plain MQTT on
    // this port): counted, not logged, as there can be many.
    mqtts.on('tlsClientError', (_error: Error, socket: TLSSocket) => {
      this.metrics.count('mqtt_tls_handshake_failures_total', 'MQTT over TLS connections closed before their handshake completed');
      socket.destroy();
    });
    await listen(mqtts, { port: tls.port, host: this.options.host });
    this.mqtts = mqtts;
  }

  /** Takes an MQTT connection over TCP from the client at `peer`, within the per-address limit. */
  private accept(socket: Socket, peer: string | undefined): void {
    const address = clientAddressKey(peer);
    const place = this.admit(address, () => socket.destroy());
    if (!place) return void socket.destroy();
    this.sockets.add(socket);
    socket.once('close', () => {
      this.sockets.delete(socket);
      this.release(address, place);
    });
    this.handle(socket, address, this.refusedOnce(address), place);
  }

  /**
   * Counts the first reason a connection is cut for, once: a WebSocket may exceed its message
   * size while the packet guard refuses an earlier message of it.
   */
  private refusedOnce(address: string): (reason: ConnectionRefusal) => void {
    let counted = false;
    return (reason) => {
      if (counted) return;
      counted = true;
      this.refusals.refused(address, reason);
    };
  }

  /**
   * Takes a place for a new connection from the address, in all, for the address and in the
   * waiting room until its CONNECT has come; undefined, with the refusal counted, when there is
   * none. `close` ends the connection should a newcomer push it out of the waiting room.
   */
  private admit(address: string, close: () => void): WaitingPlace | undefined {
    if (!this.total.admit()) {
      this.refusals.refusedAtCapacity(this.total.max);
      return undefined;
    }
    if (!this.perAddress.admit(address)) {
      this.total.release();
      this.refusals.refused(address, 'too_many_connections');
      return undefined;
    }
    const arrival = this.waitingRoom.enter(address, close);
    if ('refused' in arrival) {
      this.release(address);
      this.refusals.refused(address, 'waiting_room_full');
      return undefined;
    }
    if (arrival.displaced) this.refusals.refused(address, 'pushed_out_before_connect');
    return arrival.place;
  }

  /** An admitted connection closed. */
  private release(address: string, place?: WaitingPlace): void {
    this.total.release();
    this.perAddress.release(address);
    place?.leave();
  }

  /** Hands the connection to the broker, its incoming packets bounded by their headers. */
  private handle(stream: Duplex, address: string, refused: (reason: ConnectionRefusal) => void, place: WaitingPlace | undefined, request?: IncomingMessage): void {
    const guard = new PacketSizeGuard(this.options.limits.maxPacketBytes);
    // Its CONNECT has come: the connection leaves the waiting room while the broker checks it.
    if (place) guard.whenFirstPacketArrives(() => place.leave());
    guardIncoming(stream, guard, refused);
    const client = this.aedes.handle(stream, request);
    useParserBuffer(client);
    this.sessions.connectionsOf.set(client, { address, guard });
  }
}

