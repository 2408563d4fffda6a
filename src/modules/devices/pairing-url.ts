// The pairing URL: everything a phone or modem needs to join, in one string that fits a QR code
// or a command line (docs/pairing.md):
//   smsgw://<mqtt host>:<mqtt port>?v=1&device=<id>&token=<token>[&tls=1[&pin=<key pin>]][&api=<HTTP base>]
// and the choice of the broker address it names: the one phones reach, which behind a proxy or a
// public name is not the address the gateway listens on.
import type { MqttAddress } from '../../config.ts';

export const PAIRING_SCHEME = 'smsgw';
export const PAIRING_VERSION = 1;

/** What the gateway knows of its own addresses, from its configuration. */
export interface KnownAddresses {
  /** MQTT_PUBLIC_URL. */
  mqttPublicUrl: MqttAddress | undefined;
  /** PUBLIC_URL. */
  publicUrl: string | undefined;
  /** The port the broker listens on (MQTT_PORT, or the one picked for port 0). */
  mqttPort: number;
  /** True: mqttPort is MQTT over TLS (MQTTS_PORT, the gateway has TLS_CERT). */
  mqttTls?: boolean | undefined;
  /**
   * The pin of the certificate the gateway serves (src/tls/public-key-pin.ts), when it has one:
   * what lets a phone trust a self-signed or private-CA certificate from the pairing URL alone.
   */
  tlsPin?: string | undefined;
}

/** The host a request came to, and its origin when it was an HTTP request. */
export interface RequestAddress {
  /** Without brackets for IPv6. */
  hostname: string;
  /** http(s)://host[:port]; none for a command run on the gateway's machine. */
  origin?: string | undefined;
}

/** Where a phone connects and where it uploads: the two addresses a pairing URL carries. */
export interface PairingAddress {
  broker: MqttAddress;
  /** The HTTP base, without a trailing slash; undefined: not known, the device uploads nothing. */
  api: string | undefined;
  /** Given with a TLS broker only. */
  pin?: string | undefined;
}

/**
 * The broker phones reach: MQTT_PUBLIC_URL as configured; else PUBLIC_URL's host on the broker's
 * port (MQTTS_PORT when the gateway has TLS) (the usual single-host install behind a web proxy); else the host the request came to on
 * that port. Undefined only when none of them is known.
 */
export function pairingAddress(known: KnownAddresses, request: RequestAddress | undefined): PairingAddress | undefined {
  const api = known.publicUrl ? known.publicUrl.replace(/\/+$/, '') : request?.origin;
  // Behind MQTT_PUBLIC_URL the phones may meet a proxy's certificate rather than the gateway's:
  // the pin only adds a way to trust, so a proxy whose certificate the phones trust anyway still
  // works, and one they do not trust fails as it would without the pin.
  const withPin = (broker: MqttAddress): PairingAddress => ({ broker, api, ...(broker.tls && known.tlsPin ? { pin: known.tlsPin } : {}) });
  if (known.mqttPublicUrl) return withPin(known.mqttPublicUrl);
  const host = known.publicUrl ? unbracketed(new URL(known.publicUrl).hostname) : request?.hostname;
  if (!host) return undefined;
  return withPin({ host, port: known.mqttPort, tls: known.mqttTls ?? false });
}

export function pairingUrl(address: PairingAddress, deviceId: string, token: string): string {
  const parameters: [string, string][] = [
    ['v', String(PAIRING_VERSION)],
    ['device', deviceId],
    ['token', token],
    ...(address.broker.tls ? [['tls', '1'] as [string, string]] : []),
    ...(address.broker.tls && address.pin ? [['pin', address.pin] as [string, string]] : []),
    ...(address.api ? [['api', address.api] as [string, string]] : []),
  ];
  // encodeURIComponent rather than URLSearchParams: a space must be %20 (never +), which every
  // reader decodes alike.
  const query = parameters.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
  return `${PAIRING_SCHEME}://${hostAndPort(address.broker)}?${query}`;
}

/** host:port, an IPv6 host in brackets, as URLs write it. */
export function hostAndPort(broker: Pick<MqttAddress, 'host' | 'port'>): string {
  return `${broker.host.includes(':') ? `[${broker.host}]` : broker.host}:${broker.port}`;
}

/** mqtt://host:port or mqtts://host:port. */
export function brokerUrl(broker: MqttAddress): string {
  return `${broker.tls ? 'mqtts' : 'mqtt'}://${hostAndPort(broker)}`;
}

function unbracketed(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}
