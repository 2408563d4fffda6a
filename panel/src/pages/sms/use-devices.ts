// The account's devices, for the "Device" filters and choices and for naming a device in a row.
// One page of the largest size: an account with more than 100 phones still lists the first 100.
import { get, type Page } from '../../api.ts';
import { useLoad } from '../../ui/use-load.ts';
import type { Device } from '../../api/types.ts';

const DEVICES_PER_CHOICE = 100;

export function useDevices() {
  const loaded = useLoad(() => get<Page<Device>>('/devices', { limit: DEVICES_PER_CHOICE }), []);
  const devices = loaded.data?.data ?? [];
  return {
    devices,
    error: loaded.error,
    /** The device's name, or its short id when it is not among those loaded (or deleted). */
    nameOf(id: string | null): string {
      if (!id) return '—';
      return devices.find((device) => device.id === id)?.name_custom ?? `${id.slice(0, 8)}…`;
    },
  };
}

/** Options of a "Device" select: the first one (value "") stands for no choice. */
export function deviceOptions(devices: Device[], firstLabel: string) {
  return [{ value: '', label: firstLabel }, ...devices.map((device) => ({ value: device.id, label: `${device.name_custom}${device.is_online ? '' : ' (offline)'}` }))];
}
