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
import { describeEnvironmentError } from './common/errors.ts';
import { createMetrics, gatewayComposition, type Services } from './services.ts';
import { createHttpServer } from './api/http-server.ts';
import { startAll, stopAll } from './composition/composition.ts';
import { extendedRoutes, featureMounts, phoneRoutes } from './composition/features.ts';
import type { Running } from './composition/feature.ts';
import { LISTEN_BACKLOG } from './http/server-limits.ts';
import { createBroker, DeviceChannel, type DeviceBroker } from '../broker/device-channel.ts';
import { brokerPorts } from './api/mqtt/broker-ports.ts';
import { OptedOutLists } from './modules/opt-out/device-list.ts';
import { PACKAGE_VERSION } from './common/package-info.ts';
import { ensurePortsFree, plannedPorts } from './common/ports-free.ts';
import { connectCluster, type Cluster } from './cluster/cluster.ts';
import type { CertificatePair } from './tls/certificate-pair.ts';
import type { ReloadOutcome } from './tls/certificate-reloader.ts';
import { readFirstPair, ServedCertificates } from './tls/served-certificates.ts';
import { MetricsEndpoint } from './http/metrics-endpoint.ts';
import { defaultConnectionBudget, listenerShares } from './common/file-descriptors.ts';

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
    /** What HTTPS, MQTTS and SMPP over TLS serve, reloaded on SIGHUP. */
    private readonly certificates: ServedCertificates,
    /** What the features run while the gateway runs, stopped phase by phase. */
    private readonly running: readonly Running[],
    /** /metrics, on the API port with METRICS_TOKEN or on its own with METRICS_PORT. */
    private readonly metricsEndpoint: MetricsEndpoint,
  ) {}

  /** Reads SMPP_TLS_CERT and SMPP_TLS_KEY again (what SIGHUP does); keeps the old pair when the new one is bad. Never throws. */
  reloadSmppCertificate(reason = 'SIGHUP'): ReloadOutcome {
    return this.certificates.reloadSmpp(reason);
  }

  /** Reads TLS_CERT and TLS_KEY again for HTTPS and MQTTS (what SIGHUP does); keeps the old pair when the new one is bad. Never throws. */
  reloadCertificate(reason = 'SIGHUP'): ReloadOutcome {
    return this.certificates.reload(reason);
  }

  /** The certificate served now; none without TLS. */
  get certificate(): CertificatePair | undefined {
    return this.certificates.reloader?.pair;
  }

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
      await cluster?.start({
        presence: services.presence,
        live: services.live,
        work: { arrived: (work) => services.dispatcher.workArrived(work) },
        acceptTransient: (sms) => services.dispatcher.acceptTransient(sms),
      });
      const shared = cluster;
      composition.meter();
      certificates = new ServedCertificates(config, firstPair, logger, services.metrics, () => services.smppServer?.current);
      const { reloader } = certificates;
      let channel: DeviceChannel | undefined;
      let draining = false;
      metricsEndpoint = new MetricsEndpoint(config.metrics, services.metrics, logger.child({ component: 'metrics' }));
      const created = createHttpServer(services, {
        config,
        logger,
        version: VERSION,
        extendedRoutes: extendedRoutes(services, {
          broker: {
            // With TLS, phones are paired to MQTTS: a token never crosses the network in clear.
            mqttPort: () => (config.tls ? (channel?.tlsPort ?? config.tls.mqttsPort) : (channel?.port ?? config.mqttPort)),
            mqttTls: config.tls !== undefined,
            tlsPin: () => reloader?.pair.pin,
            mqttPublicUrl: config.mqttPublicUrl,
            publicUrl: config.publicUrl,
            trustedProxies: config.trustedProxies,
          },
          session: { secure: config.sessions.secureCookie, maxAgeSeconds: Math.floor(config.sessions.maxAgeMs / 1000) },
        }),
        phoneRoutes: phoneRoutes(services),
        mounts: featureMounts(services, config),
        health: { brokerListening: () => channel?.listening === true, ...(shared ? { redis: () => shared.check() } : {}), draining: () => draining },
        metricsEndpoint,
        certificates: reloader,
      });
      const server = (http = created.server);
      https = created.https;
      await listen(server, config.port, config.host).catch((error: unknown) => {
        throw describeEnvironmentError(error, { port: ['PORT', config.port, config.host] });
      });
      channel = await DeviceChannel.start(broker, brokerPorts(services), services.metrics, logger.child({ component: 'broker' }), {
        port: config.plainMqtt ? config.mqttPort : undefined,
        ...(config.tls && reloader ? { tls: { port: config.tls.mqttsPort, secureContext: reloader.secureContext } } : {}),
        host: config.host,
        http: server,
        limits: { ...config.mqtt, maxConnections: config.mqtt.maxConnections ?? listenerShares(config.connectionBudget ?? defaultConnectionBudget()).mqtt },
        refusalDelayMs: config.authThrottle.mqttRefusalDelayMs,
        trustedProxies: config.trustedProxies,
      }).catch((error: unknown) => {
        throw describeEnvironmentError(error, { port: ['MQTT_PORT', config.mqttPort, config.host] });
      });
      await metricsEndpoint.listen().catch((error: unknown) => {
        throw describeEnvironmentError(error, { port: ['METRICS_PORT', config.metrics.port ?? 0, config.metrics.host] });
      });
      // Listeners of other protocols, timers and sweeps, feature by feature.
      const running = composition.running();
      await startAll(running);
      certificates.start([https, channel.tlsServer]);
      const gateway = new Gateway(config, logger, services, channel, server, cluster, () => (draining = true), certificates, running, metricsEndpoint);
      const smpp = services.smppServer?.current;
      const mail = services.mailServer?.current;
      logger.info(
        {
          port: gateway.httpPort,
          tls: reloader !== undefined,
          mqttPort: channel.port ?? 'off',
          ...(reloader ? { mqttsPort: channel.tlsPort } : {}),
          ...(smpp ? { smppPort: smpp.port ?? 'off', smppTlsPort: smpp.tlsPort ?? 'off' } : {}),
          ...(mail ? { smtpPort: mail.port, smtpDomain: config.smtp.domain, smtpStartTls: config.smtp.tls !== undefined } : {}),
          database: config.databaseUrl ? 'postgresql' : 'embedded',
        },
        'gateway listening',
      );
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
    const port = this.services.smppServer?.current?.port;
    if (port === undefined) throw new Error('SMPP is off (SMPP_PORT is not set)');
    return port;
  }

  /** The SMPP over TLS port as listening; throws when SMPP_TLS_PORT is not set. */
  get smppTlsPort(): number {
    const port = this.services.smppServer?.current?.tlsPort;
    if (port === undefined) throw new Error('SMPP over TLS is off (SMPP_TLS_PORT is not set)');
    return port;
  }

  /** The SMTP port as listening; throws when SMTP_PORT is not set. */
  get smtpPort(): number {
    const mail = this.services.mailServer?.current;
    if (!mail) throw new Error('email to SMS is off (SMTP_PORT is not set)');
    return mail.port;
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

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
