// The columns the devices list and the dashboard's devices at a glance share: the device's name
// linking to its page, then whether it is online, its battery and its charging.
import type { Device } from '../../api/types.ts';
import { href } from '../../router.ts';
import { OnlineBadge } from '../../ui/badge.tsx';
import type { Column } from '../../ui/data-table.tsx';
import { BatteryLevel, ChargingState } from './device-power.tsx';

export function deviceName(header: string): Column<Device> {
  return { header, cell: (device) => <a href={href(`/devices/${device.id}`)}>{device.name_custom}</a> };
}

export const powerColumns: Column<Device>[] = [
  { header: 'State', cell: (device) => <OnlineBadge online={device.is_online} /> },
  { header: 'Battery', numeric: true, cell: (device) => <BatteryLevel device={device} /> },
  { header: 'Charging', cell: (device) => <ChargingState device={device} /> },
];
