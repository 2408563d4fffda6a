// The Extended API's view of a device, with its pacing settings and, for one device,
// its queue.
import type { Static } from '@sinclair/typebox';
import type { DeviceRow } from './repository.ts';
import type { DeviceDetail, DeviceQueue, DeviceRegistration, DeviceView } from './schema.ts';
import { agentInstallCommand } from './install-command.ts';
import { brokerUrl, pairingUrl, type PairingAddress } from './pairing-url.ts';
import { simCardsWithNumbers } from './sim-numbers.ts';
import type { SimLimits } from './types.ts';

export function presentDevice(device: DeviceRow, isOnline: boolean): Static<typeof DeviceView> {
  return {
    id: device.id,
    type: device.type,
    name: device.name,
    // An empty name_custom resets to the system name.
    name_custom: device.name_custom || device.name,
    group: device.group_name ?? null,
    is_online: isOnline,
    is_charging: device.is_charging,
    battery_level: device.battery_level,
    signal_percent: device.signal_percent,
    can_send_sms: device.can_send_sms,
    selected_sim: device.selected_sim,
    notify_low_battery: device.notify_low_battery,
    forward_incoming_sms: device.forward_incoming_sms,
    incoming_held: device.incoming_held ?? null,
    capabilities: device.capabilities ?? null,
    radio: device.radio ?? null,
    record_calls: device.record_calls,
    sim_cards: simCardsWithNumbers(device.sim_cards, device.sim_numbers),
    sim_numbers: device.sim_numbers ?? {},
    sim_limits: presentSimLimits(device.sim_limits),
    send_window: device.send_window,
    limits: { per_minute: device.limit_per_minute, per_hour: device.limit_per_hour, per_day: device.limit_per_day },
    quiet_hours: device.quiet_hours,
    send_jitter: device.send_jitter ?? null,
    max_send_attempts: device.max_send_attempts ?? null,
    // A past paused_until stays visible: the device was paused then, and why.
    paused_until: device.paused_until?.toISOString() ?? null,
    paused_reason: device.paused_reason,
    last_seen_at: device.last_seen_at?.toISOString() ?? null,
    created_at: device.created_at.toISOString(),
    updated_at: device.updated_at.toISOString(),
  };
}

/** Every limit of each slot set, null where the slot has none. */
function presentSimLimits(limits: SimLimits | undefined): Static<typeof DeviceView>['sim_limits'] {
  return Object.fromEntries(
    Object.entries(limits ?? {}).map(([slot, limit]) => [
      slot,
      { per_day: limit.per_day ?? null, per_month: limit.per_month ?? null, recipients_per_month: limit.recipients_per_month ?? null },
    ]),
  );
}

export function presentDeviceDetail(device: DeviceRow, isOnline: boolean, queue: Static<typeof DeviceQueue>): Static<typeof DeviceDetail> {
  return { ...presentDevice(device, isOnline), queue };
}

/**
 * What registration and a new token answer: the device, its credentials (the token shown this
 * once), where its phone connects, and the pairing URL that carries all of it.
 */
export function presentIssuedCredentials(
  device: DeviceRow,
  isOnline: boolean,
  token: string,
  address: PairingAddress,
  listeningPort: number,
): Static<typeof DeviceRegistration> {
  const { broker } = address;
  const url = pairingUrl(address, device.id, token);
  return {
    device: presentDevice(device, isOnline),
    credentials: { client_id: device.id, username: device.id, password: token },
    broker: { mqtt_port: listeningPort, websocket_path: '/mqtt', host: broker.host, port: broker.port, tls: broker.tls, url: brokerUrl(broker) },
    pairing_url: url,
    // The install line fetches the agent from the gateway's HTTP address: none known, no line.
    ...(address.api ? { install_command: agentInstallCommand(address.api, url) } : {}),
  };
}
