// The embedded MQTT broker (Aedes 1.x) that every device holds one connection to: MQTT 3.1.1
// over TCP on MQTT_PORT, over TLS on MQTTS_PORT (with TLS_CERT), and over WebSocket at /mqtt on
// the HTTP server. It authenticates and
// authorizes every connection, hands device messages to DeviceMessages, and gives the
// dispatcher a way to reach devices (DeviceLink).
import { EventEmitter } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type SecureContextOptions, type Server as TlsServer, type TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Aedes, type AuthenticateError, type Client, type PublishPacket } from 'aedes';
import { WebSocketServer, createWebSocketStream } from 'ws';
import type { Logger } from '../src/common/logger.ts';
import type { Metrics } from '../src/common/metrics.ts';
import type { Services } from '../src/services.ts';
import type { MqttLimitsConfig } from '../src/config.ts';
import { clientAddressKey, type TrustedProxies } from '../src/common/client-address.ts';
import { readProxyHeader } from './proxy-protocol.ts';
import { secretMatches } from '../src/common/secrets.ts';
import { isUuid } from '../src/common/object-id.ts';
import type { AuthAttempt } from '../src/common/auth-throttle.ts';
import { keyPrefix } from '../src/modules/api-keys/key-format.ts';
import { liveDeviceIds, type DeviceRow } from '../src/modules/devices/repository.ts';
import type { DeviceLink } from '../src/modules/delivery/dispatcher.ts';
import type { SendTask } from '../src/modules/delivery/task.ts';
import { decidePublish, decideSubscribe, mayReceive, QUARANTINE_PREFIX } from './acl.ts';
import { DeviceMessages } from './device-messages.ts';
import { meterBroker } from './metrics.ts';
import { DeviceLookup } from './device-lookup.ts';
import { LastSeenWriter } from './last-seen.ts';
import { indexRetainedMessages } from './retained-store.ts';
import { shareRetainedMessages } from './shared-retained-store.ts';
import { deliverMessagesFromOtherNodes } from './node-local-sessions.ts';
import { canonicalDeviceId, identityOf, OPERATOR_CLIENT_PREFIX, setIdentity, type DeviceIdentity } from './identity.ts';
import { canonicalTopic, deviceTopic, isDeviceToGateway, parseDeviceTopic, TOPIC_PREFIX } from './topics.ts';
import { guardIncoming, PacketSizeGuard } from './packet-guard.ts';
import { ConnectionsPerAddress } from './connection-limits.ts';
import { RefusalLog, type ConnectionRefusal } from './refusal-log.ts';
import { describeEnvironmentError } from '../src/common/errors.ts';
import { applyKeepaliveLimit } from './keepalive.ts';
import { OutageNotice } from '../src/storage/database-errors.ts';
import { PresenceMirror } from './presence-mirror.ts';
import type { Redis } from 'ioredis';
import type { Claim } from '../src/cluster/presence.ts';

export const WEBSOCKET_PATH = '/mqtt';
/** A WebSocket message may carry this many packets of the largest size (see listen()). */
export const WEBSOCKET_MESSAGE_PACKETS = 4;

/** CONNACK return code 5 (MQTT 3.1.1 table 3.1): "not authorized". */
const NOT_AUTHORIZED = 5;
/** CONNACK return code 3: "server unavailable". */
const SERVER_UNAVAILABLE = 3;

export interface DeviceChannelOptions {
  /** Plain MQTT over TCP; none: no plain listener (MQTT_PORT=off, with TLS). */
  port: number | undefined;
  host: string;
  /** MQTT over TLS on its own port, with this certificate (a CertificateReloader replaces it later). */
  tls?: { port: number; secureContext: SecureContextOptions };
  /** The HTTP server that also carries MQTT over WebSocket. */
  http: HttpServer;
  /** Packet sizes, CONNECT timeout and connections per address (MQTT_* variables). */
  limits: MqttLimitsConfig;
  /** How long a CONNECT from a throttled address waits for its CONNACK 5. */
  refusalDelayMs: number;
  /** Load balancers (TRUSTED_PROXIES) that name the client: PROXY protocol over TCP, X-Forwarded-For over WebSocket. */
  trustedProxies?: TrustedProxies;
  /** Several nodes (src/cluster): what the broker shares with the others; none for a single node. */
  cluster?: BrokerCluster;
}

/** What a broker shares with the brokers of the other nodes through Redis. */
export interface BrokerCluster {
  /** Aedes' message bus, reaching every node's subscribers (src/cluster/mqtt-emitter.ts). */
  mq: object;
  /** Where retained messages are kept: a Redis hash. */
  retained: { redis: Redis; key: string };
  /** Which node holds which device's connection (src/cluster/presence.ts). */
  ownership: {
    claim(deviceId: string, accountId: string): Promise<Claim>;
    release(deviceId: string, accountId: string, token: string): Promise<'released' | 'moved'>;
    stillHolds(deviceId: string, accountId: string, token: string): Promise<boolean>;
  };
}

/** What the gateway knows of a connection before it has authenticated. */
interface Connection {
  /** The client address as counted (clientAddressKey). */
  address: string;
  guard: PacketSizeGuard;
}

/** "ready": a device subscribed to its tasks, so a task published now reaches it. */
export class DeviceChannel extends EventEmitter<{ ready: [deviceId: string] }> implements DeviceLink {
  /** The live connection of each device; a takeover replaces it. */
  private readonly connections = new Map<string, Client>();
  /**
   * The newest authenticated CONNECT of a device that has a connection (or a takeover) already:
   * Aedes closes the old connection when it registers the new one, before the new one is ready,
   * and that close must not take the device offline.
   */
  private readonly takingOver = new Map<string, Client>();
  /** Devices subscribed to their task topic. */
  private readonly ready = new Set<string>();
  private readonly messages: DeviceMessages;
  private tcp: Server | undefined;
  private mqtts: TlsServer | undefined;
  private ws: WebSocketServer | undefined;
  private readonly sockets = new Set<Socket>();
  /** CONNECT lookups and last-seen writes, many devices per statement (reconnect storms). */
  private readonly lookup: DeviceLookup;
  private readonly lastSeen: LastSeenWriter;
  /** CONNECTs refused with code 3 while the database is unreachable: one log line per outage. */
  private readonly databaseOutage: OutageNotice;
  private readonly connectionsOf = new WeakMap<Client, Connection>();
  private readonly perAddress: ConnectionsPerAddress;
  private readonly refusals: RefusalLog;
  private readonly presenceMirror: PresenceMirror;
  /** Several nodes: each device connection's claim of its device (src/cluster/presence.ts). */
  private readonly claims = new WeakMap<Client, Claim>();
  /** Releases of claims on their way to Redis; a stop waits for them. */
  private readonly releasing = new Set<Promise<void>>();
  /** The node is stopping: with several nodes, its phones are handed over, not announced offline. */
  private stopping = false;

  private constructor(
    private readonly aedes: Aedes,
    private readonly services: Services,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly options: DeviceChannelOptions,
  ) {
    super();
    this.perAddress = new ConnectionsPerAddress(options.limits.maxConnectionsPerAddress);
    this.refusals = new RefusalLog(metrics, logger);
    this.presenceMirror = new PresenceMirror(services.presence, (topic, payload) => this.publish({ topic, payload, qos: 1, retain: true }), logger);
    this.messages = new DeviceMessages(
      services,
      metrics,
      logger,
      (identity) => this.wentOffline(identity),
      (deviceId, smsId, reason) => this.revokeTask(deviceId, smsId, reason),
      (identity) => this.loggedInWithOldToken(identity),
    );
    this.lookup = new DeviceLookup(services.db);
    this.lastSeen = new LastSeenWriter(services.db, logger);
    this.databaseOutage = new OutageNotice(logger, 'device CONNECTs answered CONNACK 3 (server unavailable)');
  }

  static async start(services: Services, metrics: Metrics, logger: Logger, options: DeviceChannelOptions): Promise<DeviceChannel> {
    const aedes = await Aedes.createBroker({
      // One slow or frozen device must not stall delivery to the others (architecture pitfalls).
      drainTimeout: 10_000,
      concurrency: 1000,
      // Applies from the first byte: a connection that sends nothing, or a CONNECT that never
      // completes, is closed (and counted, see connectionError) after this time.
      connectTimeout: options.limits.connectTimeoutMs,
      heartbeatInterval: 60_000,
      maxClientsIdLength: 64,
      // No refusal for a keepalive: preConnect applies the gateway's own limit (broker/keepalive.ts).
      keepaliveLimit: 0,
      ...(options.cluster ? { mq: options.cluster.mq as never } : {}),
    });
    // Retained messages from a topic tree, not a scan of all of them per SUBSCRIBE (architecture
    // pitfalls); with several nodes, from Redis, one lookup per SUBSCRIBE.
    if (options.cluster) {
      shareRetainedMessages(aedes, options.cluster.retained.redis, options.cluster.retained.key, metrics);
      deliverMessagesFromOtherNodes(aedes);
    } else {
      indexRetainedMessages(aedes);
    }
    const channel = new DeviceChannel(aedes, services, metrics, logger, options);
    channel.installHooks();
    channel.presenceMirror.start();
    try {
      await channel.listen(options);
    } catch (error) {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      throw error;
    }
    metrics.gauge('mqtt_connected_clients', 'MQTT connections open now', () => aedes.connectedClients);
    meterBroker(aedes, metrics);
    return channel;
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
    return configured.length > 0 && configured.every((server) => server.listening) && !this.aedes.closed;
  }

  // DeviceLink -------------------------------------------------------------------------------

  isReady(deviceId: string): boolean {
    return this.ready.has(deviceId);
  }

  sendTask(deviceId: string, task: SendTask): Promise<void> {
    return this.publish({ topic: deviceTopic(deviceId, 'tasks'), payload: JSON.stringify(task), qos: 1, retain: false });
  }

  sendSettings(device: DeviceRow): Promise<void> {
    return this.publish({ topic: deviceTopic(device.id, 'settings'), payload: JSON.stringify(settingsOf(device)), qos: 1, retain: true });
  }

  revokeTask(deviceId: string, smsId: string, reason: string): Promise<void> {
    return this.publish({ topic: deviceTopic(deviceId, 'revoke'), payload: JSON.stringify({ sms_id: smsId, reason }), qos: 1, retain: false });
  }

  /** Closes the device's connection at once (revocation). */
  disconnect(deviceId: string): void {
    const client = this.connections.get(deviceId);
    if (!client) return;
    this.dropDevice(deviceId, client);
    client.close();
  }

  async close(): Promise<void> {
    this.stopping = true;
    this.presenceMirror.stop();
    this.ws?.close();
    for (const client of this.ws?.clients ?? []) client.terminate();
    await new Promise<void>((resolve) => this.aedes.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await Promise.all([this.tcp, this.mqtts].map((server) => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))));
    await Promise.allSettled([...this.releasing]);
    await this.lastSeen.close();
  }

  // Broker wiring ----------------------------------------------------------------------------

  private async listen(options: DeviceChannelOptions): Promise<void> {
    if (options.port !== undefined) await this.listenPlain(options.port, options);
    if (options.tls) {
      await this.listenTls(options.tls, options).catch((error: unknown) => {
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
      if (!this.admit(address)) return void socket.terminate();
      socket.once('close', () => this.perAddress.release(address));
      const refused = this.refusedOnce(address);
      socket.on('error', (error: Error & { code?: string }) => {
        if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') refused('packet_too_large');
      });
      this.handle(createWebSocketStream(socket), address, refused, request);
    });
  }

  private async listenPlain(port: number, options: DeviceChannelOptions): Promise<void> {
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
    await listenOn(tcp, port, options.host);
    this.tcp = tcp;
  }

  /**
   * MQTT over TLS. The client's place under MQTT_MAX_CONNECTIONS_PER_ADDRESS is taken when its TCP
   * connection arrives, before the handshake, so that handshakes cannot be used to get around the
   * cap. No PROXY header is read here: a balancer in front terminates TLS itself and sends plain
   * MQTT to MQTT_PORT (deploy/cluster/haproxy.cfg).
   */
  private async listenTls(tls: { port: number; secureContext: SecureContextOptions }, options: DeviceChannelOptions): Promise<void> {
    const mqtts = createTlsServer({
      ...tls.secureContext,
      noDelay: true,
      // A connection that never completes its handshake holds a socket like one that never sends CONNECT.
      handshakeTimeout: options.limits.connectTimeoutMs,
    });
    mqtts.on('connection', (socket: Socket) => {
      const address = clientAddressKey(socket.remoteAddress);
      if (!this.admit(address)) return void socket.destroy();
      this.sockets.add(socket);
      socket.once('close', () => {
        this.sockets.delete(socket);
        this.perAddress.release(address);
      });
    });
    mqtts.on('secureConnection', (socket: TLSSocket) => {
      const address = clientAddressKey(socket.remoteAddress);
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      this.handle(socket, address, this.refusedOnce(address));
    });
    // A failed handshake (a client that does not trust the certificate, a scanner, plain MQTT on
    // this port): counted, not logged, as there can be many.
    mqtts.on('tlsClientError', (_error: Error, socket: TLSSocket) => {
      this.metrics.count('mqtt_tls_handshake_failures_total', 'MQTT over TLS connections closed before their handshake completed');
      socket.destroy();
    });
    await listenOn(mqtts, tls.port, options.host);
    this.mqtts = mqtts;
  }

  /** Takes an MQTT connection over TCP from the client at `peer`, within the per-address limit. */
  private accept(socket: Socket, peer: string | undefined): void {
    const address = clientAddressKey(peer);
    if (!this.admit(address)) return void socket.destroy();
    this.sockets.add(socket);
    socket.once('close', () => {
      this.sockets.delete(socket);
      this.perAddress.release(address);
    });
    this.handle(socket, address, this.refusedOnce(address));
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

  /** Takes a place for a new connection from the address, or counts its refusal. */
  private admit(address: string): boolean {
    if (this.perAddress.admit(address)) return true;
    this.refusals.refused(address, 'too_many_connections');
    return false;
  }

  /** Hands the connection to the broker, its incoming packets bounded by their headers. */
  private handle(stream: Duplex, address: string, refused: (reason: ConnectionRefusal) => void, request?: IncomingMessage): void {
    const guard = new PacketSizeGuard(this.options.limits.maxPacketBytes);
    guardIncoming(stream, guard, refused);
    const client = this.aedes.handle(stream, request);
    this.connectionsOf.set(client, { address, guard });
  }

  private installHooks(): void {
    const { aedes } = this;
    aedes.preConnect = (client, packet, done) => {
      const { keepalive, adjusted } = applyKeepaliveLimit(packet.keepalive ?? 0);
      if (adjusted) {
        this.metrics.count('mqtt_keepalive_adjusted_total', 'CONNECTs whose keepalive the gateway replaced with its own limit', { requested: adjusted });
        this.logger.info({ clientId: packet.clientId?.slice(0, 64), requested: packet.keepalive, applied: keepalive }, 'mqtt keepalive replaced by the gateway limit');
        packet.keepalive = keepalive;
      }
      done(null, true);
    };
    aedes.authenticate = (client, username, password, done) => {
      // CONNACK 3: the device backs off and connects again (docs/devices.md), nothing is lost.
      const unavailable = (reason: 'overloaded' | 'database_unavailable' | 'error') => {
        this.metrics.count('mqtt_connect_unavailable_total', 'CONNECTs answered "server unavailable" (CONNACK 3)', { reason });
        const refused = new Error('server unavailable') as AuthenticateError;
        refused.returnCode = SERVER_UNAVAILABLE;
        done(refused, false);
      };
      // A saturated process takes no new sessions: a reconnect storm waits instead of deepening it.
      if (this.services.admission.saturated()) return unavailable('overloaded');
      this.authenticate(client, username, password).then(
        (ok) => {
          this.databaseOutage.succeeded();
          if (ok) return done(null, true);
          const error = new Error('not authorized') as AuthenticateError;
          error.returnCode = NOT_AUTHORIZED;
          done(error, false);
        },
        (error: unknown) => {
          // An outage is logged once, not once per device of a reconnecting fleet.
          if (this.databaseOutage.failed(error)) return unavailable('database_unavailable');
          this.logger.error({ err: error }, 'mqtt authentication failed with an error');
          unavailable('error');
        },
      );
    };

    aedes.authorizePublish = (client, packet, done) => {
      const identity = identityOf(client);
      const decision = decidePublish(identity, packet);
      if ('quarantine' in decision) {
        // Kept off every subscriber and out of the retained store; published() logs it.
        packet.topic = `${QUARANTINE_PREFIX}${identity?.kind === 'device' ? identity.deviceId : 'unknown'}/${decision.quarantine}`;
        packet.retain = false;
        return done(null);
      }
      if ('reason' in decision) {
        const deviceId = identity?.kind === 'device' ? identity.deviceId : undefined;
        this.metrics.count('mqtt_publish_refused_total', 'MQTT publishes refused (the connection is closed)', { reason: decision.reason });
        this.logger.warn({ clientId: client?.id, deviceId, reason: decision.reason }, 'mqtt publish refused');
        return done(new Error(decision.reason));
      }
      if (identity?.kind === 'device') {
        // Routed, retained and consumed on the canonical topic, whatever case the device wrote its id in.
        packet.topic = canonicalTopic(packet.topic);
        // A last will of a connection that a takeover replaced (or is replacing) is stale: drop it.
        const staleWill = () => {
          packet.topic = `${QUARANTINE_PREFIX}${identity.deviceId}/stale_will`;
          packet.retain = false;
        };
        if (packet.topic.endsWith('/presence')) {
          if (!this.isCurrent(identity.deviceId, client)) staleWill();
          else if (this.options.cluster && isOffline(packet.payload)) {
            // Another node may have taken the device over: Aedes closes this connection then,
            // and its will must not overwrite the presence the new node holds.
            const claim = this.claims.get(client!);
            if (claim) {
              return void this.options.cluster.ownership.stillHolds(identity.deviceId, identity.accountId, claim.token).then((holds) => {
                if (!holds) staleWill();
                done(null);
              });
            }
          }
        }
      }
      done(null);
    };

    aedes.authorizeSubscribe = (client, subscription, done) => {
      const identity = identityOf(client);
      const refresh = identity?.kind === 'operator' ? this.refreshOperatorDevices(identity) : Promise.resolve();
      refresh.then(
        () => {
          const granted = decideSubscribe(identity, subscription);
          if (granted) {
            // Aedes subscribes with the granted filter, but takes the retained messages and the
            // "subscribe" event from the packet's own subscription: that gets the canonical filter too.
            subscription.topic = granted.topic;
          } else {
            this.metrics.count('mqtt_subscribe_refused_total', 'MQTT subscriptions refused');
            this.logger.warn({ clientId: client.id, topic: subscription.topic }, 'mqtt subscription refused');
          }
          done(null, granted);
        },
        (error: unknown) => done(error as Error),
      );
    };

    aedes.authorizeForward = (client, packet) => (mayReceive(identityOf(client), packet.topic) ? packet : null);

    aedes.published = (packet, client, done) => {
      this.consume(packet, client).then(
        () => done(),
        // Not acknowledged: the device sends the report again.
        (error: unknown) => {
          this.logger.error({ err: error, topic: packet.topic }, 'device message failed');
          done(error as Error);
        },
      );
    };

    aedes.on('clientReady', (client) => this.connected(client));
    aedes.on('clientDisconnect', (client) => this.disconnected(client));
    aedes.on('keepaliveTimeout', (client) => this.logger.info({ clientId: client.id }, 'mqtt keepalive timeout'));
    aedes.on('ping', (_packet, client) => {
      const identity = identityOf(client);
      if (identity?.kind === 'device' && this.connections.get(identity.deviceId) === client) {
        this.services.presence.markActive(identity.deviceId, identity.accountId);
      }
    });
    aedes.on('subscribe', (subscriptions, client) => {
      const identity = identityOf(client);
      if (identity?.kind !== 'device') return;
      const topics = new Set(subscriptions.map((subscription) => subscription.topic));
      const base = `${TOPIC_PREFIX}${identity.deviceId}/`;
      const own = (kind: 'tasks' | 'settings') => topics.has(base + kind) || topics.has(`${base}#`) || topics.has(`${base}+`);
      if (own('settings')) void this.sendSettings(identity.device).catch((error: unknown) => this.logger.error({ err: error }, 'settings push failed'));
      if (own('tasks') && this.connections.get(identity.deviceId) === client) {
        this.ready.add(identity.deviceId);
        this.emit('ready', identity.deviceId);
        this.services.delivery.deviceReady(identity.device).catch((error: unknown) => this.logger.error({ err: error }, 'task re-drive failed'));
      }
    });
    aedes.on('clientError', (client, error) => this.logger.debug({ clientId: client?.id, err: error.message }, 'mqtt client error'));
    aedes.on('connectionError', (client, error) => {
      // Aedes' CONNECT timer (connectTimeout) ends a connection with this error; nothing else does.
      const address = this.connectionsOf.get(client)?.address;
      if (address !== undefined && error.message === 'connect did not arrive in time') this.refusals.refused(address, 'connect_timeout');
      else this.logger.debug({ clientId: client?.id, err: error.message }, 'mqtt connection error');
    });
  }

  private async authenticate(client: Client, username: string | undefined, password: Buffer | undefined): Promise<boolean> {
    const connection = this.connectionsOf.get(client);
    const address = connection?.address;
    const throttle = this.services.authThrottle;
    const secret = password?.toString('utf8') ?? '';
    // An operator presents an API key (counted with the API's keys), a phone its device token
    // (counted with the phones' own failures, never with an API client's).
    const operator = client.id?.startsWith(OPERATOR_CLIENT_PREFIX) ?? false;
    const attempt: AuthAttempt = operator
      ? { channel: 'api_key', address, credential: keyPrefix(secret) }
      : { channel: 'device', address, credential: username && isUuid(username) ? username.toLowerCase() : undefined };
    // Refusals past a limit come only after a delay: a guesser's loop slows down, and the
    // per-address connection cap bounds how many it can hold waiting.
    const slowDown = () => new Promise((resolve) => setTimeout(resolve, this.options.refusalDelayMs).unref());
    if (throttle.refusedFor(attempt) > 0) {
      // Refused unchecked: no lookup, no hash.
      await slowDown();
      this.refusals.refused(address ?? 'unknown', 'auth_throttled');
      return false;
    }
    const refuse = async (reason: string, guess = true) => {
      this.metrics.count('mqtt_auth_failures_total', 'MQTT connections refused at CONNECT', { reason });
      this.logger.warn({ clientId: client.id?.slice(0, 64), reason }, 'mqtt connection refused');
      // A key that is valid but lacks the permission is no guess: it does not count.
      if (guess && throttle.failed(attempt) > 0) await slowDown();
      return false;
    };
    const accepted = () => {
      connection?.guard.authenticated();
      return true;
    };
    if (operator) {
      const auth = await this.services.apiKeys.authenticate(secret);
      if (!auth) return refuse('bad_api_key');
      if (!auth.permissions.has('devices:monitor')) return refuse('missing_devices_monitor', false);
      const identity = { kind: 'operator' as const, accountId: auth.accountId, keyId: auth.keyId, devices: new Set<string>() };
      await this.refreshOperatorDevices(identity);
      setIdentity(client, identity);
      return accepted();
    }
    // Device ids compare case-insensitively (they are UUIDs).
    if (!username || !client.id || username.toLowerCase() !== client.id.toLowerCase() || !isUuid(username)) return refuse('bad_client_id');
    const device = await this.lookup.find(username);
    if (!device || !device.token_hash || !secretMatches(secret, device.token_hash)) return refuse('bad_device_credentials');
    const deviceId = canonicalDeviceId(device.id);
    // One client id per device, whatever its case: Aedes then closes a live connection of the
    // device when it registers this one ([MQTT-3.1.4-2]), and keeps one session's state.
    client.id = deviceId;
    setIdentity(client, { kind: 'device', deviceId, accountId: device.account_id, device, tokenHash: device.token_hash });
    const cluster = this.options.cluster;
    if (cluster) {
      // Written before Aedes announces the new client: the node holding the device's older
      // connection, told to close it, then finds this node named, and announces no offline.
      const claim = await cluster.ownership.claim(deviceId, device.account_id);
      this.claims.set(client, claim);
      if (client.closed) {
        void cluster.ownership.release(deviceId, device.account_id, claim.token);
        return false;
      }
    }
    if (!client.closed && (this.connections.has(deviceId) || this.takingOver.has(deviceId))) this.takingOver.set(deviceId, client);
    return accepted();
  }

  private async refreshOperatorDevices(identity: { accountId: string; devices: Set<string> }): Promise<void> {
    const ids = await liveDeviceIds(this.services.db, identity.accountId);
    identity.devices.clear();
    for (const id of ids) identity.devices.add(id);
  }

  private connected(client: Client): void {
    const identity = identityOf(client);
    if (identity?.kind !== 'device') return;
    const { deviceId } = identity;
    if (this.takingOver.get(deviceId) === client) this.takingOver.delete(deviceId);
    const previous = this.connections.get(deviceId);
    this.connections.set(deviceId, client);
    if (previous && previous !== client) {
      // Aedes has closed it already (same client id); should one be left, this one replaces it.
      this.ready.delete(deviceId);
      previous.close();
    }
    if (this.claims.get(client)?.moved) {
      this.services.presence.markMovedIn(deviceId, identity.accountId);
      this.logger.info({ deviceId }, 'device connected, moved here from another node');
    } else {
      this.services.presence.markActive(deviceId, identity.accountId);
      this.logger.info({ deviceId }, 'device connected');
    }
    this.lastSeen.touch(deviceId);
  }

  private disconnected(client: Client): void {
    const identity = identityOf(client);
    if (identity?.kind !== 'device') return;
    const { deviceId } = identity;
    const successor = this.takingOver.get(deviceId);
    if (successor === client) {
      // A takeover that ended before its connection was ready: offline, unless the old one lives on.
      this.takingOver.delete(deviceId);
      if (!this.connections.has(deviceId)) {
        this.services.delivery.deviceGone(deviceId);
        this.leave(deviceId, client);
      }
      this.lastSeen.touch(deviceId);
      return;
    }
    // After a takeover the old connection's disconnect must not take the new one offline.
    if (this.connections.get(deviceId) !== client) return;
    if (successor && !successor.closed) {
      // Closed for a takeover: the device stays online; it is ready again once the new
      // connection has subscribed to its tasks.
      this.connections.delete(deviceId);
      this.ready.delete(deviceId);
    } else {
      if (successor) this.takingOver.delete(deviceId);
      this.dropDevice(deviceId, client);
    }
    this.lastSeen.touch(deviceId);
  }

  /** Whether this is the device's connection, and no takeover of it is under way. */
  private isCurrent(deviceId: string, client: Client | null): boolean {
    const successor = this.takingOver.get(deviceId);
    return this.connections.get(deviceId) === client && (!successor || successor === client || successor.closed);
  }

  private wentOffline(identity: DeviceIdentity): void {
    const client = this.connections.get(identity.deviceId);
    // Only the current connection's "offline" counts: a last will of a connection that has been
    // replaced meanwhile (a quick reconnect) arrives late and must not drop its successor.
    if (client && identityOf(client) === identity) this.dropDevice(identity.deviceId, client);
  }

  /**
   * A heartbeat's row names a token other than the one this connection logged in with: the token
   * was replaced where no message reached this node (a command run beside it, without Redis), or
   * while this CONNECT was being checked. Closed as a replacement announced here closes it.
   */
  private loggedInWithOldToken(identity: DeviceIdentity): void {
    const client = this.connections.get(identity.deviceId);
    if (!client || identityOf(client) !== identity) return;
    this.logger.info({ deviceId: identity.deviceId }, 'device connection closed: its token was replaced');
    this.disconnect(identity.deviceId);
  }

  private dropDevice(deviceId: string, client: Client): void {
    if (this.connections.get(deviceId) !== client) return;
    this.connections.delete(deviceId);
    this.ready.delete(deviceId);
    this.services.delivery.deviceGone(deviceId);
    this.leave(deviceId, client);
  }

  /**
   * The device's connection here ended: offline, unless (several nodes) another node holds its
   * connection now, or a newer connection here does.
   */
  private leave(deviceId: string, client: Client): void {
    const claim = this.claims.get(client);
    const identity = identityOf(client);
    const cluster = this.options.cluster;
    if (!cluster || !claim || identity?.kind !== 'device') {
      this.services.presence.markDisconnected(deviceId);
      this.logger.info({ deviceId }, 'device offline');
      return;
    }
    if (this.stopping) {
      // A rolling restart: the phone reconnects to another node, which finds this node's claim
      // and takes the phone over silently. One that does not come back within PRESENCE_LEASE is
      // announced offline by the node that reaps this one's lease.
      this.services.presence.markMovedOut(deviceId);
      return;
    }
    const release = cluster.ownership.release(deviceId, identity.accountId, claim.token).then((outcome) => {
      if (this.connections.has(deviceId)) return;
      if (outcome === 'moved') {
        this.services.presence.markMovedOut(deviceId);
        this.logger.info({ deviceId }, 'device moved to another node');
      } else {
        this.services.presence.markDisconnected(deviceId);
        this.logger.info({ deviceId }, 'device offline');
      }
    });
    this.releasing.add(release);
    void release.finally(() => this.releasing.delete(release));
  }

  private async consume(packet: PublishPacket, client: Client | null): Promise<void> {
    const identity = identityOf(client);
    if (identity?.kind !== 'device') return;
    if (packet.topic.startsWith(QUARANTINE_PREFIX)) {
      const reason = packet.topic.split('/').pop() ?? 'unknown';
      if (reason !== 'stale_will') this.messages.rejected(identity.deviceId, reason);
      return;
    }
    const topic = parseDeviceTopic(packet.topic);
    if (!topic || !isDeviceToGateway(topic.kind)) return;
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    await this.messages.handle(identity, topic.kind, payload);
  }

  private publish(packet: { topic: string; payload: string; qos: 0 | 1; retain: boolean }): Promise<void> {
    if (this.aedes.closed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.aedes.publish({ cmd: 'publish', dup: false, ...packet, payload: Buffer.from(packet.payload) }, (error) =>
        error ? reject(error) : resolve(),
      );
    });
  }
}

function isOffline(payload: Buffer | string): boolean {
  return (typeof payload === 'string' ? payload : payload.toString('utf8')).trim() === 'offline';
}

/** The settings a device applies (docs/asyncapi.yaml, message DeviceSettings). */
function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function settingsOf(device: DeviceRow) {
  return {
    can_send_sms: device.can_send_sms,
    selected_sim: device.selected_sim,
    notify_low_battery: device.notify_low_battery,
    forward_incoming_sms: device.forward_incoming_sms,
    record_calls: device.record_calls,
    name_custom: device.name_custom ?? device.name,
    // Pacing, for the phone's information: the gateway enforces it whatever the phone does.
    send_window: device.send_window,
    limits: { per_minute: device.limit_per_minute, per_hour: device.limit_per_hour, per_day: device.limit_per_day },
    quiet_hours: device.quiet_hours,
  };
}
