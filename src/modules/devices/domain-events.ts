// What the devices module announces to the rest of the gateway (src/events/domain-events.ts).
import type { DeviceRow } from './types.ts';

export interface DevicesEvents {
  /** A device connected, or showed activity after silence. */
  'device.online': { deviceId: string; accountId: string };
  /** A device disconnected, or went silent past DEVICE_OFFLINE_AFTER. */
  'device.offline': { deviceId: string; accountId: string };
  /**
   * No change: where a device stands is to be stated again (the broker's retained presence
   * message, after another node's reaping or a Redis outage); nothing is announced to clients.
   */
  'device.presence_restated': { deviceId: string; online: boolean };
  /** A device's settings changed (PATCH settings, legacy edit). */
  'device.settings_changed': DeviceRow;
  /** A device was deleted; its credentials are dead. */
  'device.deleted': DeviceRow;
  /** A device was given a new token; the old one is dead, and so must be a connection made with it. */
  'device.token_replaced': DeviceRow;
  /** A device with notify_low_battery on reported its battery falling below the threshold. */
  'device.battery_low': DeviceRow;
}
