// The Extended API's view of a device (spec 2.1).
import type { Static } from '@sinclair/typebox';
import type { DeviceRow } from './repository.ts';
import type { DeviceView } from './schema.ts';

export function presentDevice(device: DeviceRow, isOnline: boolean): Static<typeof DeviceView> {
  return {
    id: device.id,
    type: device.type,
    name: device.name,
    // spec 2.1: an empty name_custom resets to the system name.
    name_custom: device.name_custom || device.name,
    is_online: isOnline,
    is_charging: device.is_charging,
    battery_level: device.battery_level,
    can_send_sms: device.can_send_sms,
    selected_sim: device.selected_sim,
    notify_low_battery: device.notify_low_battery,
    forward_incoming_sms: device.forward_incoming_sms,
    record_calls: device.record_calls,
    sim_cards: device.sim_cards,
    created_at: device.created_at.toISOString(),
    updated_at: device.updated_at.toISOString(),
  };
}
