// The webhook bodies of fleet health: a SIM found at fault by the canary rounds (device.degraded)
// and one working again (device.recovered), naming the device as the other device events do.
import { envelope, type EventEnvelope } from '../webhooks/event-contract.ts';
import type { DeviceRow } from '../devices/types.ts';
import type { SimHealthChange } from './domain-events.ts';

type DeviceNames = Pick<DeviceRow, 'id' | 'object_id' | 'account_id' | 'name' | 'name_custom'>;

/** device.degraded or device.recovered for one SIM's change. */
export function simHealthEvent(device: DeviceNames, change: SimHealthChange, at: Date): EventEnvelope {
  return envelope(
    change.state === 'degraded' ? 'device.degraded' : 'device.recovered',
    device.account_id,
    {
      device_id: device.id,
      sim_slot: change.simSlot,
      fault: change.fault,
      reason: change.reason,
      device: { id: device.id, object_id: device.object_id, name: device.name, name_custom: device.name_custom ?? device.name },
    },
    at,
  );
}
