// The embedded MQTT broker (Aedes 1.x) that every device holds one connection to, assembled from
// one file per concern, in the manner of Aedes' own handlers: listen.ts (TCP, TLS, WebSocket, the
// PROXY protocol), connect.ts (who connects), publish.ts and device-messages.ts (what devices
// send), subscribe.ts (what they may hear), forward.ts (what reaches them), takeover.ts (a device
// connecting twice, here or on another node). It speaks MQTT only: everything else is asked of the
// ports (ports.ts).
//
// Made in two steps. createBroker() makes the Aedes instance and the sessions (sessions.ts),
// through which the dispatcher reaches devices, before the services exist; DeviceChannel.start()
// then installs the handlers with the services' ports and starts listening.
import { EventEmitter } from 'node:events';
import type { Server as TlsServer } from 'node:tls';
import { Aedes } from 'aedes';
import type { Logger } from '../src/common/logger.ts';
import type { Metrics } from '../src/common/metrics.ts';
import { DeviceMessages } from './device-messages.ts';
import { meterBroker } from './metrics.ts';
import { indexRetainedMessages } from './retained-store.ts';
import { capRetainedQoS } from './retained-qos.ts';
import { indexSubscriptions } from './subscription-index.ts';
import { shareRetainedMessages } from './shared-retained-store.ts';
import { deliverMessagesFromOtherNodes } from './node-local-sessions.ts';
import { RefusalLog } from './refusal-log.ts';
import { PresenceMirror } from './presence-mirror.ts';
import { DeviceSessions } from './sessions.ts';
import { ConnectHandler } from './connect.ts';
import { installPublish } from './publish.ts';
import { installSubscribe } from './subscribe.ts';
import { authorizeForwarding } from './forward.ts';
import { Takeovers } from './takeover.ts';
import { Listeners, type ListenOptions } from './listen.ts';
import type { BrokerCluster, BrokerPorts, SettingsSources } from './ports.ts';

export { WEBSOCKET_MESSAGE_PACKETS, WEBSOCKET_PATH } from './listen.ts';

/** The Aedes instance and its sessions, made before the services (see above). */
export interface DeviceBroker {
  aedes: Aedes;
  /** The dispatcher's way to devices (DeviceLink). */
  sessions: DeviceSessions;
  /** Several nodes (src/cluster): what the broker shares with the others; none for a single node. */
  cluster: BrokerCluster | undefined;
  /** Closes a broker that never started (the gateway failed to start). */
  close(): Promise<void>;
}

export async function createBroker(
  options: { connectTimeoutMs: number; cluster?: BrokerCluster | undefined; settings?: SettingsSources | undefined },
  metrics: Metrics,
): Promise<DeviceBroker> {
  const { cluster } = options;
  const aedes = await Aedes.createBroker({
    // One slow or frozen device must not stall delivery to the others (architecture pitfalls).
    drainTimeout: 10_000,
    concurrency: 1000,
    // Applies from the first byte: a connection that sends nothing, or a CONNECT that never
    // completes, is closed (and counted, see connectionError) after this time.
    connectTimeout: options.connectTimeoutMs,
    heartbeatInterval: 60_000,
    maxClientsIdLength: 64,
    // No refusal for a keepalive: preConnect applies the gateway's own limit (broker/keepalive.ts).
    keepaliveLimit: 0,
    ...(cluster ? { mq: cluster.mq as never } : {}),
  });
  // Retained messages from a topic tree, not a scan of all of them per SUBSCRIBE (architecture
  // pitfalls); with several nodes, from Redis, one lookup per SUBSCRIBE.
  if (cluster) {
    shareRetainedMessages(aedes, cluster.retained.redis, cluster.retained.key, metrics);
    deliverMessagesFromOtherNodes(aedes);
  } else {
    indexRetainedMessages(aedes);
  }
  capRetainedQoS(aedes);
  // Each device's exact topics in one Map, not in two topic trees (a few KB per device).
  indexSubscriptions(aedes);
  return {
    aedes,
    sessions: new DeviceSessions(aedes, options.settings),
    cluster,
    close: () => new Promise<void>((resolve) => aedes.close(() => resolve())),
  };
}

export interface DeviceChannelOptions extends ListenOptions {
  /** How long a CONNECT from a throttled address waits for its CONNACK 5. */
  refusalDelayMs: number;
}

/** "ready": a device subscribed to its tasks, so a task published now reaches it. */
export class DeviceChannel extends EventEmitter<{ ready: [deviceId: string] }> {
  private constructor(
    private readonly broker: DeviceBroker,
    private readonly servers: Listeners,
    private readonly takeovers: Takeovers,
    private readonly presenceMirror: PresenceMirror,
  ) {
    super();
    broker.sessions.on('ready', (deviceId) => this.emit('ready', deviceId));
  }

  static async start(broker: DeviceBroker, ports: BrokerPorts, metrics: Metrics, logger: Logger, options: DeviceChannelOptions): Promise<DeviceChannel> {
    const { aedes, sessions, cluster } = broker;
    const refusals = new RefusalLog(metrics, logger);
    const takeovers = new Takeovers(sessions, ports, cluster, logger);
    const messages = new DeviceMessages(
      ports,
      metrics,
      logger,
      (identity) => takeovers.wentOffline(identity),
      (deviceId, smsId, reason) => sessions.revokeTask(deviceId, smsId, reason),
      (identity) => takeovers.loggedInWithOldToken(identity),
    );
    const connect = new ConnectHandler(sessions, ports, refusals, metrics, logger, { refusalDelayMs: options.refusalDelayMs, cluster });
    connect.install(aedes);
    installPublish(aedes, sessions, messages, cluster, metrics, logger);
    installSubscribe(aedes, sessions, connect, ports.delivery, metrics, logger);
    authorizeForwarding(aedes);
    takeovers.install(aedes);
    aedes.on('keepaliveTimeout', (client) => logger.info({ clientId: client.id }, 'mqtt keepalive timeout'));
    aedes.on('clientError', (client, error) => logger.debug({ clientId: client?.id, err: error.message }, 'mqtt client error'));
    aedes.on('connectionError', (client, error) => {
      // Aedes' CONNECT timer (connectTimeout) ends a connection with this error; nothing else does.
      const address = sessions.connectionsOf.get(client)?.address;
      if (address !== undefined && error.message === 'connect did not arrive in time') refusals.refused(address, 'connect_timeout');
      else logger.debug({ clientId: client?.id, err: error.message }, 'mqtt connection error');
    });

    const presenceMirror = new PresenceMirror(ports.presence, (topic, payload) => sessions.publish({ topic, payload, qos: 1, retain: true }), logger);
    presenceMirror.start();
    const listeners = new Listeners(aedes, sessions, refusals, metrics, options);
    try {
      await listeners.listen();
    } catch (error) {
      presenceMirror.stop();
      await broker.close();
      throw error;
    }
    metrics.gauge('mqtt_connected_clients', 'MQTT connections open now', () => aedes.connectedClients);
    meterBroker(aedes, metrics);
    return new DeviceChannel(broker, listeners, takeovers, presenceMirror);
  }

  /** The plain MQTT port as listening (port 0 picks one); none with MQTT_PORT=off. */
  get port(): number | undefined {
    return this.servers.port;
  }

  /** The MQTT over TLS port as listening; none without TLS. */
  get tlsPort(): number | undefined {
    return this.servers.tlsPort;
  }

  /** The MQTTS listener, whose certificate a reload replaces; none without TLS. */
  get tlsServer(): TlsServer | undefined {
    return this.servers.tlsServer;
  }

  get listening(): boolean {
    return this.servers.listening && !this.broker.aedes.closed;
  }

  /** Connected and subscribed to its task topic: a task published now reaches it. */
  isReady(deviceId: string): boolean {
    return this.broker.sessions.isReady(deviceId);
  }

  async close(): Promise<void> {
    this.takeovers.closing();
    this.presenceMirror.stop();
    this.servers.closeWebSockets();
    await this.broker.close();
    await this.servers.closeServers();
    await this.takeovers.released();
  }
}
