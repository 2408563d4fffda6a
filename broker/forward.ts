// What reaches devices: tasks, settings and revocations the gateway publishes, and the messages of
// other clients a connection may receive (operators watch their account's devices; nobody else
// hears anything it is not meant to, see acl.ts).
import type { Aedes } from 'aedes';
import { mayReceive } from './acl.ts';
import { identityOf } from './identity.ts';
import type { DeviceRecord, OptedOutNumbers } from './ports.ts';

export interface OutgoingPacket {
  topic: string;
  payload: string;
  qos: 0 | 1;
  retain: boolean;
}

export function authorizeForwarding(aedes: Aedes): void {
  aedes.authorizeForward = (client, packet) => (mayReceive(identityOf(client), packet.topic) ? packet : null);
}

/** Publishes as the broker itself (no client); nothing once the broker has closed. */
export function publishFromGateway(aedes: Aedes, packet: OutgoingPacket): Promise<void> {
  if (aedes.closed) return Promise.resolve();
  return new Promise((resolve, reject) => {
    aedes.publish({ cmd: 'publish', dup: false, ...packet, payload: Buffer.from(packet.payload) }, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * The settings a device applies (docs/asyncapi.yaml, message DeviceSettings). `optedOut`: the
 * account's suppression list, hashed, which the phone checks encrypted SMS against; absent while
 * the list is empty, so that a phone holds no list after the last number left it.
 */
export function settingsOf(device: DeviceRecord, optedOut?: OptedOutNumbers) {
  return {
    can_send_sms: device.can_send_sms,
    selected_sim: device.selected_sim,
    notify_low_battery: device.notify_low_battery,
    forward_incoming_sms: device.forward_incoming_sms,
    record_calls: device.record_calls,
    name_custom: device.name_custom ?? device.name,
    // Pacing, for the phone's information: the gateway enforces it whatever the phone does.
    send_window: device.send_window,
    limits: { per_minute: device.limit_per_minute, per_hour: device.limit_per_hour, per_day: device.limit_per_day },
    quiet_hours: device.quiet_hours,
    send_jitter: device.send_jitter ?? null,
    max_send_attempts: device.max_send_attempts ?? null,
    ...(optedOut ? { opted_out: optedOut } : {}),
  };
}
