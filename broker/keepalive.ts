// The keepalive a connection gets. MQTT 3.1.1 has no CONNACK code for an unacceptable keepalive:
// Aedes' keepaliveLimit answers 6, which 3.1.1 does not define (clients report a protocol error,
// and the device never learns why). So the gateway accepts every keepalive and applies its own
// limit instead: a connection that asks for more than MAX_KEEPALIVE_SECONDS, or for none (0),
// is treated as if it had asked for MAX_KEEPALIVE_SECONDS, and is closed after one and a half
// times that without a packet [MQTT-3.1.2-24]. docs/asyncapi.yaml says so to device authors.

/** The longest silence (seconds) the gateway lets a connection announce. */
export const MAX_KEEPALIVE_SECONDS = 600;

export type KeepaliveAdjustment = 'none_requested' | 'over_limit';

/** The keepalive (seconds) the gateway applies, and why it differs from the requested one. */
export function applyKeepaliveLimit(requested: number): { keepalive: number; adjusted?: KeepaliveAdjustment } {
  if (requested === 0) return { keepalive: MAX_KEEPALIVE_SECONDS, adjusted: 'none_requested' };
  if (requested > MAX_KEEPALIVE_SECONDS) return { keepalive: MAX_KEEPALIVE_SECONDS, adjusted: 'over_limit' };
  return { keepalive: requested };
}
