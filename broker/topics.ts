// The device protocol's topic tree (docs/asyncapi.yaml is the contract). The version sits in
// the prefix, so a v2 protocol can run beside v1 on the same broker.
//
//   sms-gateway/v1/devices/{deviceId}/tasks      gateway -> device  QoS 1        send tasks
//   sms-gateway/v1/devices/{deviceId}/settings   gateway -> device  QoS 1 retain device settings
//   sms-gateway/v1/devices/{deviceId}/status     device -> gateway  QoS 1        SMS status reports
//   sms-gateway/v1/devices/{deviceId}/heartbeat  device -> gateway  QoS 1 retain battery, SIMs, ...
//   sms-gateway/v1/devices/{deviceId}/presence   device -> gateway  QoS 1 retain "online" / will "offline"
//   sms-gateway/v1/devices/{deviceId}/incoming   device -> gateway  QoS 1        received SMS
export const TOPIC_PREFIX = 'sms-gateway/v1/devices/';

export const GATEWAY_TO_DEVICE = ['tasks', 'settings'] as const;
export const DEVICE_TO_GATEWAY = ['status', 'heartbeat', 'presence', 'incoming'] as const;
export type GatewayToDevice = (typeof GATEWAY_TO_DEVICE)[number];
export type DeviceToGateway = (typeof DEVICE_TO_GATEWAY)[number];
export type TopicKind = GatewayToDevice | DeviceToGateway;

export function deviceTopic(deviceId: string, kind: TopicKind): string {
  return `${TOPIC_PREFIX}${deviceId}/${kind}`;
}

/** Splits a concrete topic of the device tree; undefined for anything else. */
export function parseDeviceTopic(topic: string): { deviceId: string; kind: string } | undefined {
  if (!topic.startsWith(TOPIC_PREFIX)) return undefined;
  const rest = topic.slice(TOPIC_PREFIX.length).split('/');
  if (rest.length !== 2 || !rest[0] || !rest[1]) return undefined;
  return { deviceId: rest[0], kind: rest[1] };
}

export function isDeviceToGateway(kind: string): kind is DeviceToGateway {
  return (DEVICE_TO_GATEWAY as readonly string[]).includes(kind);
}
