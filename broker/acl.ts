// What each connection may publish, subscribe to, and receive.
//
// Devices publish only on their own device-to-gateway topics and subscribe only to their own
// topics. Operators publish nothing and receive only their own account's devices' messages.
// Nobody touches $SYS. A device message that is wrong but harmless (unknown topic under its own
// prefix, malformed or oversized payload) is quarantined: moved to a topic nobody can subscribe
// to, so the connection stays up and the message is logged and counted, never applied.
//
// Device ids compare case-insensitively: a device may write its own id in any case in its
// topics, and an operator may name its devices in any case. Granted subscriptions carry the
// canonical filter (device segment in lower case), which is what the broker routes on.
import type { PublishPacket, Subscription } from 'aedes';
import { decodeCallReport, decodeHeartbeat, decodeIncomingSms, decodeMmsReport, decodePresence, decodeStatusReport, decodeUssdReport, MAX_DEVICE_PAYLOAD_BYTES } from './payloads.ts';
import { canonicalTopic, isDeviceToGateway, parseDeviceTopic, TOPIC_PREFIX, type DeviceToGateway } from './topics.ts';
import type { Identity } from './identity.ts';

export const QUARANTINE_PREFIX = '$quarantine/';

export type PublishDecision = { allow: true } | { allow: false; reason: string } | { quarantine: string };

const DECODERS: Record<DeviceToGateway, (payload: Buffer) => { ok: boolean; reason?: string }> = {
  status: decodeStatusReport,
  heartbeat: decodeHeartbeat,
  presence: decodePresence,
  incoming: decodeIncomingSms,
  calls: decodeCallReport,
  ussd_status: decodeUssdReport,
  mms: decodeMmsReport,
};

export function decidePublish(identity: Identity | undefined, packet: PublishPacket): PublishDecision {
  if (!identity) return { allow: false, reason: 'unauthenticated' };
  if (packet.topic.startsWith('$')) return { allow: false, reason: 'reserved topic' };
  if (identity.kind === 'operator') return { allow: false, reason: 'operators are read-only' };
  // Another device's topics, or anything outside the device tree, are refused (tenancy).
  if (!canonicalTopic(packet.topic).startsWith(`${TOPIC_PREFIX}${identity.deviceId}/`)) return { allow: false, reason: 'not this device\'s topic' };
  const topic = parseDeviceTopic(packet.topic);
  if (!topic || !isDeviceToGateway(topic.kind)) return { quarantine: 'unknown_topic' };
  const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
  if (payload.length > MAX_DEVICE_PAYLOAD_BYTES) return { quarantine: 'payload_too_large' };
  const decoded = DECODERS[topic.kind](payload);
  if (!decoded.ok) return { quarantine: decoded.reason === 'malformed JSON' ? 'malformed_json' : 'invalid_payload' };
  return { allow: true };
}

/**
 * The subscription as granted (canonical filter, QoS capped at 1), or null to refuse it (SUBACK
 * 0x80).
 */
export function decideSubscribe(identity: Identity | undefined, subscription: Subscription): Subscription | null {
  if (!identity) return null;
  if (subscription.topic.startsWith('$')) return null;
  const filter = canonicalTopic(subscription.topic);
  const granted = { ...subscription, topic: filter, qos: Math.min(subscription.qos, 1) as 0 | 1 };
  if (identity.kind === 'device') {
    const own = `${TOPIC_PREFIX}${identity.deviceId}/`;
    return filter.startsWith(own) && !filter.slice(own.length).includes('/') ? granted : null;
  }
  // Operators: anything inside the device tree. A filter naming a device must name one of
  // theirs; wildcard filters are allowed and every packet is checked again on delivery.
  if (!filter.startsWith(TOPIC_PREFIX)) return null;
  const deviceSegment = filter.slice(TOPIC_PREFIX.length).split('/')[0];
  if (deviceSegment === undefined || deviceSegment === '') return null;
  if (deviceSegment !== '+' && deviceSegment !== '#' && !identity.devices.has(deviceSegment)) return null;
  return granted;
}

/** Whether a message may be delivered to this connection. */
export function mayReceive(identity: Identity | undefined, topic: string): boolean {
  if (!identity) return false;
  const parsed = parseDeviceTopic(topic);
  if (!parsed) return false;
  return identity.kind === 'device' ? parsed.deviceId === identity.deviceId : identity.devices.has(parsed.deviceId);
}
