// The pairing URL: where the broker is and the device's credentials, in one string the gateway
// issues (a QR code in the control panel, `pairing_url` in the API):
//   smsgw://host:port?v=1&device=<id>&token=<token>[&tls=1[&pin=<key pin>]][&api=<API base URL>]
// Unknown parameters are ignored, so that a later version can add some; an unknown version is
// refused, as its meaning may have changed. A parameter may be added within version 1 only when
// an agent that ignores it stays safe: pin is one, as an agent that does not know it checks the
// certificate against the system's CAs and, when they do not vouch for it, refuses to connect;
// it never connects unchecked (docs/pairing.md).

export interface Pairing {
  /** mqtt://host:port or mqtts://host:port */
  brokerUrl: string;
  deviceId: string;
  token: string;
  /** The gateway's HTTP base, where call recordings go; undefined when not given. */
  apiUrl: string | undefined;
  /** With TLS: the key the gateway's certificate chain holds (tls-trust.ts); undefined when not given. */
  pin?: string | undefined;
}

const SCHEME = 'smsgw:';
const VERSION = '1';
/** A key pin (tls-trust.ts): base64url, without padding, of a SHA-256. */
const PIN_FORMAT = /^[A-Za-z0-9_-]{43}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads a pairing URL; throws an Error saying what is wrong with it (never echoing the token). */
export function parsePairingUrl(text: string): Pairing {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error('the pairing URL is not a URL (it starts with smsgw://)');
  }
  if (url.protocol !== SCHEME) throw new Error(`the pairing URL must start with smsgw://, not ${url.protocol}//`);
  const version = url.searchParams.get('v') ?? VERSION;
  if (version !== VERSION) throw new Error(`the pairing URL has version ${version}; this agent reads version ${VERSION}: update the agent`);
  if (!url.hostname) throw new Error('the pairing URL names no host');
  const port = url.port === '' ? undefined : Number(url.port);
  const deviceId = url.searchParams.get('device') ?? '';
  if (!UUID.test(deviceId)) throw new Error('the pairing URL has no device id (device=<uuid>)');
  const token = url.searchParams.get('token') ?? '';
  if (token === '') throw new Error('the pairing URL has no token (token=...)');
  const tls = url.searchParams.get('tls');
  if (tls !== null && tls !== '0' && tls !== '1') throw new Error('tls in the pairing URL is 0 or 1');
  const secure = tls === '1';
  const pin = url.searchParams.get('pin');
  if (pin !== null && !PIN_FORMAT.test(pin)) throw new Error('pin in the pairing URL is not a key pin (43 characters of base64url, the SHA-256 of a public key)');
  // A pin promises a checked certificate; over plain MQTT there is none, and the token would cross in clear.
  if (pin !== null && !secure) throw new Error('the pairing URL has a pin but not tls=1: a pin is for a TLS connection');
  const api = url.searchParams.get('api');
  let apiUrl: string | undefined;
  if (api !== null && api !== '') {
    let parsed: URL;
    try {
      parsed = new URL(api);
    } catch {
      throw new Error('api in the pairing URL is not a URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('api in the pairing URL must be http:// or https://');
    apiUrl = parsed.origin + parsed.pathname.replace(/\/+$/, '');
  }
  return {
    brokerUrl: `${secure ? 'mqtts' : 'mqtt'}://${url.hostname}:${port ?? (secure ? 8883 : 1883)}`,
    deviceId: deviceId.toLowerCase(),
    token,
    apiUrl,
    ...(pin !== null ? { pin } : {}),
  };
}

/** Builds a pairing URL (the agent's tests and tools; the gateway builds its own). */
export function formatPairingUrl(pairing: { host: string; port: number; deviceId: string; token: string; tls?: boolean; pin?: string; apiUrl?: string }): string {
  const host = pairing.host.includes(':') && !pairing.host.startsWith('[') ? `[${pairing.host}]` : pairing.host;
  const query = new URLSearchParams({ v: VERSION, device: pairing.deviceId, token: pairing.token });
  if (pairing.tls) query.set('tls', '1');
  if (pairing.pin) query.set('pin', pairing.pin);
  if (pairing.apiUrl) query.set('api', pairing.apiUrl);
  return `smsgw://${host}:${pairing.port}?${query.toString()}`;
}
