// What a phone needs to join the gateway, as the QR code carries it: the pairing URL the gateway
// issues with the credentials (docs/pairing.md),
//   smsgw://<mqtt host>:<mqtt port>?v=1&device=<id>&token=<token>[&tls=1][&api=<HTTP base>]
// which the device agent takes with --pairing and a native app can read from the QR code alike.
// The page lets the user correct the broker address (a proxy or a public name the gateway was not
// told about); the URL is then rebuilt around the corrected host, port and TLS, every other
// parameter kept as the gateway issued it. Parsed by hand: browsers differ on URLs whose scheme
// is not a web one.

const PAIRING = /^smsgw:\/\/(\[[0-9A-Fa-f:.]+\]|[^:/?#[\]]+):(\d{1,5})\?(.*)$/;
const BROKER = /^(mqtts?):\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?\/?$/;

/** mqtt://host:port (or mqtts:// with tls=1) of a pairing URL; '' when it is not one. */
export function brokerOf(pairingUrl: string): string {
  const match = PAIRING.exec(pairingUrl);
  if (!match) return '';
  const tls = match[3]!.split('&').includes('tls=1');
  return `${tls ? 'mqtts' : 'mqtt'}://${match[1]}:${match[2]}`;
}

/**
 * The pairing URL naming `broker` (mqtt://host:port or mqtts://host:port; without a port MQTT's
 * usual 1883 or 8883) instead of the broker it named; undefined when `broker` is not such an address.
 */
export function withBroker(pairingUrl: string, broker: string): string | undefined {
  const issued = PAIRING.exec(pairingUrl);
  const wanted = BROKER.exec(broker.trim());
  if (!issued || !wanted) return undefined;
  const tls = wanted[1]!.toLowerCase() === 'mqtts';
  const port = wanted[3] === undefined ? (tls ? 8883 : 1883) : Number(wanted[3]);
  if (port < 1 || port > 65535) return undefined;
  const host = wanted[2]!.toLowerCase();
  const parameters = issued[3]!.split('&').filter((parameter) => !parameter.startsWith('tls='));
  // tls after the token, where the gateway writes it.
  const tokenAt = parameters.findIndex((parameter) => parameter.startsWith('token='));
  if (tls) parameters.splice(tokenAt + 1, 0, 'tls=1');
  return `smsgw://${host}:${port}?${parameters.join('&')}`;
}
