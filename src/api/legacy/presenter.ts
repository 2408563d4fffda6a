// The legacy family's views of an SMS and a device. The legacy family
// never answers null where the spec gives a field a type: a client typed after the spec would
// fail to decode it. What is not known yet is shown with a value of the right type that no real
// reading can have (and "" where the spec itself says "empty string when none"). The one null
// is the SMS's to_sim, which the spec itself types "number or null".
import type { Static } from '@sinclair/typebox';
import type { DeviceRow } from '../../modules/devices/types.ts';
import type { SmsWithDevice } from '../../modules/messages/types.ts';
import type { LegacyDevice, LegacySms } from './schema.ts';
import { LEGACY_STATUS, legacyLabel, legacyStatusOf } from '../../modules/messages/legacy-status-codes.ts';

export function presentLegacySms(sms: SmsWithDevice): Static<typeof LegacySms> {
  const status = legacyStatusOf(sms);
  return {
    id: sms.object_id,
    message: sms.message,
    status: LEGACY_STATUS[status],
    callback_id: sms.callback_id ?? '',
    device_id: sms.device_named && sms.device_object_id ? sms.device_object_id : '',
    phone_number: sms.phone,
    message_status: legacyLabel(status) as Static<typeof LegacySms>['message_status'],
    time_create: Math.floor(sms.created_at.getTime() / 1000),
    // The slot that sent it, as the phone reported; until then the slot asked for.
    // null stays null: no slot was named, so the device's settings chose.
    to_sim: sms.sim_slot === null ? null : (sms.sent_sim_slot ?? sms.sim_slot),
  };
}

/** device_battery_state until the phone reports its battery: -1, which no real charge is (Android itself reports -1 for an unknown level). */
export const BATTERY_NOT_REPORTED = -1;

/** last_online_date of a device that has never connected: the Unix epoch, older than any real connection. */
export const NEVER_ONLINE = new Date(0).toISOString();

export function presentLegacyDevice(device: DeviceRow): Static<typeof LegacyDevice> {
  return {
    device_id: device.object_id,
    device_battery_state: device.battery_level ?? BATTERY_NOT_REPORTED,
    device_name: device.name,
    is_active: device.can_send_sms,
    is_charging: device.is_charging,
    last_online_date: device.last_seen_at?.toISOString() ?? NEVER_ONLINE,
    device_name_type: device.type,
    low_battery_alert: device.notify_low_battery,
    to_sim: device.selected_sim,
    sim_list: device.sim_cards.map((card) => ({ slot_index: card.index, display_name: card.name_operator })),
  };
}
