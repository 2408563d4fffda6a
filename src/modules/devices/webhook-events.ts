// The webhook bodies that report on a device: its presence and battery (device.online,
// device.offline, device.battery_low), and the pauses delivery's breakers put on it or its SIMs
// (device.paused, device.resumed, sim.paused), all naming the device as the API shows it.
import { envelope, type EventEnvelope } from '../webhooks/event-contract.ts';
import type { DeviceRow } from './types.ts';

export function deviceEvent(type: 'device.online' | 'device.offline' | 'device.battery_low', device: DeviceRow): EventEnvelope {
  return envelope(type, device.account_id, {
    device: {
      id: device.id,
      object_id: device.object_id,
      name: device.name,
      name_custom: device.name_custom ?? device.name,
      battery_level: device.battery_level,
      is_charging: device.is_charging,
    },
  });
}

/** A device was paused (failed sends in a row, or every SIM paused): it takes no task until paused_until. */
export function devicePaused(device: DeviceNames, pausedUntil: Date, reason: string | null): EventEnvelope {
  return envelope('device.paused', device.account_id, {
    device: namesOf(device),
    pause: { paused_until: pausedUntil.toISOString(), reason },
  });
}

/** A device's pause ended: paused_until passed (ended_by time) or PATCH settings lifted it (ended_by settings). */
export function deviceResumed(device: DeviceNames, pausedUntil: Date, endedBy: 'time' | 'settings'): EventEnvelope {
  return envelope('device.resumed', device.account_id, {
    device: namesOf(device),
    pause: { paused_until: pausedUntil.toISOString(), ended_by: endedBy },
  });
}

type DeviceNames = Pick<DeviceRow, 'id' | 'object_id' | 'account_id' | 'name' | 'name_custom'>;

function namesOf(device: DeviceNames) {
  return { id: device.id, object_id: device.object_id, name: device.name, name_custom: device.name_custom ?? device.name };
}

/** The SIM breaker paused a SIM of a device: no task names it until paused_until. */
export function simPaused(device: DeviceRow, sim: { simSlot: number; pausedUntil: Date; reason: string }): EventEnvelope {
  return envelope('sim.paused', device.account_id, {
    device: namesOf(device),
    sim: { sim_slot: sim.simSlot, paused_until: sim.pausedUntil.toISOString(), reason: sim.reason },
  });
}
