// The running gateway: database, services, the HTTP server and the device channel (MQTT),
// started and stopped as one. Tests start it in-process on port 0; `sms-gateway serve` for real.
// The services, their listeners, their routes and what they run come from the features
// (src/composition/features.ts); here they are put on the network.
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { closeDatabase, migrate, openDatabase } from './storage/database.ts';
import { SecretBox } from './modules/webhooks/outbound/secret-box.ts';
import { verifySecretKey } from './modules/webhooks/outbound/secret-key-check.ts';
import { withNode, type Logger } from './common/logger.ts';
import { systemClock, type Clock } from './common/clock.ts';
import { createMetrics, gatewayComposition, type Services } from './services.ts';
import { createHttpServer, listenHttp } from './api/http-server.ts';
import { startAll, stopAll } from './composition/composition.ts';
import { FeatureWaysIn } from './composition/features.ts';
import type { Running } from './composition/feature.ts';
import { createBroker, type DeviceChannel, type DeviceBroker } from '../broker/device-channel.ts';
import { openDeviceChannel } from './api/mqtt/device-channel.ts';
import { extendedRouteOptions } from './api/extended/route-options.ts';
import { OptedOutLists } from './modules/opt-out/device-list.ts';
import { PACKAGE_VERSION } from './common/package-info.ts';
import { ensurePortsFree, plannedPorts } from './common/ports-free.ts';
import { connectCluster, type Cluster } from './cluster/cluster.ts';
import { readFirstPair, ServedCertificates } from './tls/served-certificates.ts';
import { MetricsEndpoint } from './http/metrics-endpoint.ts';

export const VERSION: string = PACKAGE_VERSION;

/** How long a stop waits for in-flight requests before it cuts the remaining connections. */
export const DRAIN_TIMEOUT_MS = 10_000;

export class Gateway {
  private constructor(
    readonly config: Config,
    readonly logger: Logger,
    readonly services: Services,
    readonly channel: DeviceChannel,
    private readonly http: Server,
    /** What this node shares with others over Redis; none without REDIS_URL. */
    private readonly cluster: Cluster | undefined,
    private readonly markDraining: () => void,
    /** What HTTPS, MQTTS and SMPP over TLS serve, reloaded on SIGHUP (or when asked: reload, reloadSmpp). */
    readonly certificates: ServedCertificates,
    /** What the features run while the gateway runs, stopped phase by phase. */
    private readonly running: readonly Running[],
    /** /metrics, on the API port with METRICS_TOKEN or on its own with METRICS_PORT. */
    private readonly metricsEndpoint: MetricsEndpoint,
  ) {}

  /**
   * Answers /readyz 503 ("draining") from now on while serving everything as before: a load
   * balancer takes the node out before it stops, and no request meets a closed port.
   */
  drain(): void {
    this.markDraining();
  }

  /** `clock`: the time delivery decisions use; tests pass one they control. */
  static async start(config: Config, givenLogger: Logger, clock?: Clock): Promise<Gateway> {
    // Every line names its node (NODE_ID), so that the logs of several nodes can be told apart.
    const logger = withNode(givenLogger, config.nodeId);
    const firstPair = readFirstPair(config);
    await ensurePortsFree(plannedPorts(config));
    const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, connections: config.database, logger });
    let http: Server | undefined;
    let https: HttpsServer | undefined;
    let cluster: Cluster | undefined;
    let broker: DeviceBroker | undefined;
    let certificates: ServedCertificates | undefined;
    let metricsEndpoint: MetricsEndpoint | undefined;
    try {
      await migrate(db, logger);
      // Before anything is sealed or opened: a node with another key refuses to start (secret-key-check.ts).
      await verifySecretKey(db, SecretBox.fromConfig(config.webhooks.secretKey, config.dataDir));
      // Made in the order each needs the other: the cluster's parts and the broker's sessions
      // first, given to the services' constructors; then the services are relayed to the other
      // nodes, and the broker's handlers are installed with the services' ports (nothing is
      // attached to anything after it is made).
      const metrics = createMetrics(config);
      cluster = await connectCluster(config, clock ?? systemClock, metrics, logger.child({ component: 'cluster' }));
      // Every settings push carries the account's opt-out list (hashed), which its changes refresh.
      const optedOutLists = new OptedOutLists(db, logger.child({ component: 'opt-out' }));
      broker = await createBroker({ connectTimeoutMs: config.mqtt.connectTimeoutMs, cluster: cluster?.broker(), settings: { optedOut: (accountId) => optedOutLists.of(accountId) } }, metrics);
      const composition = gatewayComposition(config, db, logger, clock, { metrics, deviceLink: broker.sessions, ussdLink: broker.sessions, cluster, invalidation: cluster?.invalidation, optedOutLists });
      const services = composition.makeAll();
      await cluster?.start(services);
      const shared = cluster;
      composition.meter();
      certificates = new ServedCertificates(config, firstPair, logger, services.metrics, () => services.smppServer?.current);
      const { reloader } = certificates;
      let channel: DeviceChannel | undefined;
      let draining = false;
      metricsEndpoint = new MetricsEndpoint(config.metrics, services.metrics, logger.child({ component: 'metrics' }));
      const waysIn = await FeatureWaysIn.load();
      const created = createHttpServer(services, {
        config,
        logger,
        version: VERSION,
        extendedRoutes: waysIn.extendedRoutes(services, extendedRouteOptions(config, () => channel, () => reloader?.pair.pin)),
        phoneRoutes: waysIn.phoneRoutes(services),
        mounts: waysIn.mounts(services, config),
        health: { brokerListening: () => channel?.listening === true, ...(shared ? { redis: () => shared.check() } : {}), draining: () => draining },
        metricsEndpoint,
        certificates: reloader,
      });
      const server = (http = created.server);
      https = created.https;
      await listenHttp(server, config);
      channel = await openDeviceChannel(broker, services, config, { http: server, reloader, logger: logger.child({ component: 'broker' }) });
      await metricsEndpoint.listen();
      // Listeners of other protocols, timers and sweeps, feature by feature.
      const running = composition.running();
      await startAll(running);
      certificates.start([https, channel.tlsServer]);
      const gateway = new Gateway(config, logger, services, channel, server, cluster, () => (draining = true), certificates, running, metricsEndpoint);
      const mqtt = { mqttPort: channel.port ?? 'off', ...(reloader ? { mqttsPort: channel.tlsPort } : {}) };
      const database = config.databaseUrl ? 'postgresql' : 'embedded';
      logger.info({ port: gateway.httpPort, tls: reloader !== undefined, ...mqtt, ...gateway.listening(), database }, 'gateway listening');
      return gateway;
    } catch (error) {
      certificates?.close();
      await metricsEndpoint?.close();
      http?.close();
      await broker?.close();
      await cluster?.stop();
      await closeDatabase(db);
      throw error;
    }
  }

  get httpPort(): number {
    return (this.http.address() as AddressInfo).port;
  }

  /** The port of the listener serving /metrics only (METRICS_PORT); none without it. */
  get metricsPort(): number | undefined {
    return this.metricsEndpoint.port;
  }

  /** The plain MQTT port as listening; throws with MQTT_PORT=off. */
  get mqttPort(): number {
    const port = this.channel.port;
    if (port === undefined) throw new Error('plain MQTT is off (MQTT_PORT=off)');
    return port;
  }

  /** The MQTT over TLS port as listening (MQTTS_PORT, or the one picked for port 0); throws without TLS. */
  get mqttsPort(): number {
    const port = this.channel.tlsPort;
    if (port === undefined) throw new Error('MQTT over TLS is off (TLS_CERT and TLS_KEY are not set)');
    return port;
  }

  /** The plain SMPP port as listening; throws when SMPP_PORT is not set. */
  get smppPort(): number {
    return this.portOf('smppPort', 'SMPP is off (SMPP_PORT is not set)');
  }

  /** The SMPP over TLS port as listening; throws when SMPP_TLS_PORT is not set. */
  get smppTlsPort(): number {
    return this.portOf('smppTlsPort', 'SMPP over TLS is off (SMPP_TLS_PORT is not set)');
  }

  /** The SMTP port as listening; throws when SMTP_PORT is not set. */
  get smtpPort(): number {
    return this.portOf('smtpPort', 'email to SMS is off (SMTP_PORT is not set)');
  }

  /** Where the features' listeners of other protocols listen (SMPP, SMTP), as they say. */
  listening(): Record<string, string | number | boolean> {
    return Object.assign({}, ...this.running.map((part) => part.listening?.() ?? {}));
  }

  private portOf(name: string, off: string): number {
    const port = this.listening()[name];
    if (typeof port !== 'number') throw new Error(off);
    return port;
  }

  /** Stops accepting, lets in-flight requests finish, closes device connections and the database. */
  async stop(): Promise<void> {
    this.certificates.close();
    await this.metricsEndpoint.close();
    await stopAll(this.running, 'ways-in');
    await stopAll(this.running, 'requests');
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    this.http.closeIdleConnections();
    const timer = setTimeout(() => this.http.closeAllConnections(), DRAIN_TIMEOUT_MS);
    await stopAll(this.running, 'work');
    await this.channel.close();
    await stopAll(this.running, 'phones-gone');
    await closed;
    clearTimeout(timer);
    await stopAll(this.running, 'last');
    this.services.events.removeAllListeners();
    await this.cluster?.stop();
    await closeDatabase(this.services.db);
    this.logger.info('gateway stopped');
  }
}
