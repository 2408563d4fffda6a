// The phones' way in put on the network: plain MQTT, MQTT over TLS with the certificate served now,
// and MQTT over WebSocket on the API's own HTTP server, each served by the gateway's services
// through the broker's ports. A port already taken fails the start with the setting to change.
import type { Server } from 'node:http';
import type { Config } from '../../config.ts';
import type { Logger } from '../../common/logger.ts';
import type { Metrics } from '../../common/metrics.ts';
import { describeEnvironmentError } from '../../common/errors.ts';
import { defaultConnectionBudget, listenerShares } from '../../common/file-descriptors.ts';
import type { CertificateReloader } from '../../tls/certificate-reloader.ts';
import { DeviceChannel, type DeviceBroker } from '../../../broker/device-channel.ts';
import { brokerPorts, type BrokerPortSources } from './broker-ports.ts';

export interface ChannelNetwork {
  /** The API's server, which also carries MQTT over WebSocket. */
  http: Server;
  /** What MQTTS serves; none without TLS. */
  reloader: CertificateReloader | undefined;
  logger: Logger;
}

export function openDeviceChannel(broker: DeviceBroker, services: BrokerPortSources & { metrics: Metrics }, config: Config, network: ChannelNetwork): Promise<DeviceChannel> {
  const { http, reloader, logger } = network;
  return DeviceChannel.start(broker, brokerPorts(services), services.metrics, logger, {
    port: config.plainMqtt ? config.mqttPort : undefined,
    ...(config.tls && reloader ? { tls: { port: config.tls.mqttsPort, secureContext: reloader.secureContext } } : {}),
    host: config.host,
    http,
    limits: { ...config.mqtt, maxConnections: config.mqtt.maxConnections ?? listenerShares(config.connectionBudget ?? defaultConnectionBudget()).mqtt },
    refusalDelayMs: config.authThrottle.mqttRefusalDelayMs,
    trustedProxies: config.trustedProxies,
  }).catch((error: unknown) => {
    throw describeEnvironmentError(error, { port: ['MQTT_PORT', config.mqttPort, config.host] });
  });
}
