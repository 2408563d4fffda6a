// The device's topics. The tree carries the protocol's version in its prefix, so a later protocol
// can run beside this one on the same broker. A device id is a UUID; the gateway routes on its
// lower-case form and publishes there, so a device id is best written in lower case throughout;
// what arrives is matched ignoring case.
export const TOPIC_PREFIX = 'sms-gateway/v1/devices/';

/** The gateway publishes these to the device. */
export type InboundTopic = 'tasks' | 'settings' | 'revoke';
/** The device publishes these. */
export type OutboundTopic = 'status' | 'heartbeat' | 'presence' | 'incoming' | 'calls';

export function deviceTopic(deviceId: string, kind: InboundTopic | OutboundTopic): string {
  return `${TOPIC_PREFIX}${deviceId}/${kind}`;
}

/** The kind of an inbound topic of this device; undefined for any other topic. */
export function inboundKind(deviceId: string, topic: string): InboundTopic | undefined {
  const prefix = `${TOPIC_PREFIX}${deviceId.toLowerCase()}/`;
  if (topic.toLowerCase().slice(0, prefix.length) !== prefix) return undefined;
  const kind = topic.slice(prefix.length);
  return kind === 'tasks' || kind === 'settings' || kind === 'revoke' ? kind : undefined;
}
