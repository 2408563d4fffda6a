// What the Extended API's routes learn of the running gateway beyond its services: where phones
// reach the broker (pairing answers name it), and how session cookies are set.
import type { Config } from '../../config.ts';
import type { BrokerAddress } from './devices/routes.ts';
import type { SessionRouteOptions } from './sessions/routes.ts';

/** The broker's ports as listening; undefined until the channel is open (or when off). */
export interface ListeningBroker {
  port: number | undefined;
  tlsPort: number | undefined;
}

export function extendedRouteOptions(config: Config, channel: () => ListeningBroker | undefined, tlsPin: () => string | undefined): { broker: BrokerAddress; session: SessionRouteOptions } {
  return {
    broker: {
      // With TLS, phones are paired to MQTTS: a token never crosses the network in clear.
      mqttPort: () => (config.tls ? (channel()?.tlsPort ?? config.tls.mqttsPort) : (channel()?.port ?? config.mqttPort)),
      mqttTls: config.tls !== undefined,
      tlsPin,
      mqttPublicUrl: config.mqttPublicUrl,
      publicUrl: config.publicUrl,
      trustedProxies: config.trustedProxies,
    },
    session: { secure: config.sessions.secureCookie, maxAgeSeconds: Math.floor(config.sessions.maxAgeMs / 1000) },
  };
}
