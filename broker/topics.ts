// The device protocol's topic tree (docs/asyncapi.yaml is the contract). The version sits in
// the prefix, so a v2 protocol can run beside v1 on the same broker.
//
//   sms-gateway/v1/devices/{deviceId}/tasks      gateway -> device  QoS 1        send tasks
//   sms-gateway/v1/devices/{deviceId}/settings   gateway -> device  QoS 1 retain device settings
//   sms-gateway/v1/devices/{deviceId}/revoke     gateway -> device  QoS 1        drop a task not yet acknowledged
//   sms-gateway/v1/devices/{deviceId}/ussd       gateway -> device  QoS 1        dial a USSD code, reply to its menu, cancel
//   sms-gateway/v1/devices/{deviceId}/status     device -> gateway  QoS 1        SMS status reports
//   sms-gateway/v1/devices/{deviceId}/heartbeat  device -> gateway  QoS 1 retain battery, SIMs, ...
//   sms-gateway/v1/devices/{deviceId}/presence   device -> gateway  QoS 1 retain "online" / will "offline"
//   sms-gateway/v1/devices/{deviceId}/incoming   device -> gateway  QoS 1        received SMS
//   sms-gateway/v1/devices/{deviceId}/calls      device -> gateway  QoS 2        the call log
//   sms-gateway/v1/devices/{deviceId}/ussd_status device -> gateway QoS 1 or 2   the network's USSD answers
//   sms-gateway/v1/devices/{deviceId}/mms        device -> gateway  QoS 2        received MMS (parts over HTTP)
//
// A device id is a UUID and names the same device in any case; a device may write it in any
// case in its topics. The gateway routes on the canonical topic, whose device segment is in
// lower case: what a device publishes, and what it subscribes to, is rewritten to it.
export const TOPIC_PREFIX = 'sms-gateway/v1/devices/';

export const GATEWAY_TO_DEVICE = ['tasks', 'settings', 'revoke', 'ussd'] as const;
export const DEVICE_TO_GATEWAY = ['status', 'heartbeat', 'presence', 'incoming', 'calls', 'ussd_status', 'mms'] as const;
export type GatewayToDevice = (typeof GATEWAY_TO_DEVICE)[number];
export type DeviceToGateway = (typeof DEVICE_TO_GATEWAY)[number];
export type TopicKind = GatewayToDevice | DeviceToGateway;

export function deviceTopic(deviceId: string, kind: TopicKind): string {
  return `${TOPIC_PREFIX}${deviceId}/${kind}`;
}

/** Splits a concrete topic of the device tree (the device id in lower case); undefined for anything else. */
export function parseDeviceTopic(topic: string): { deviceId: string; kind: string } | undefined {
  if (!topic.startsWith(TOPIC_PREFIX)) return undefined;
  const rest = topic.slice(TOPIC_PREFIX.length).split('/');
  if (rest.length !== 2 || !rest[0] || !rest[1]) return undefined;
  return { deviceId: rest[0].toLowerCase(), kind: rest[1] };
}

/**
 * The topic, or subscription filter, with its device segment in lower case; anything outside
 * the device tree as it is. Only the device segment changes: the kind stays case-sensitive.
 */
export function canonicalTopic(topic: string): string {
  if (!topic.startsWith(TOPIC_PREFIX)) return topic;
  const start = TOPIC_PREFIX.length;
  const slash = topic.indexOf('/', start);
  const end = slash === -1 ? topic.length : slash;
  const segment = topic.slice(start, end);
  const lower = segment.toLowerCase();
  return lower === segment ? topic : topic.slice(0, start) + lower + topic.slice(end);
}

export function isDeviceToGateway(kind: string): kind is DeviceToGateway {
  return (DEVICE_TO_GATEWAY as readonly string[]).includes(kind);
}
