// Battery and charging as words and numbers (never a colour or an icon alone), shared by the
// device list, the device page and the dashboard.
import type { Device } from '../../api/types.ts';

/** Below this the level reads as low: the same threshold a phone's own warning uses. */
const LOW_BATTERY_PERCENT = 20;

export function BatteryLevel({ device }: { device: Pick<Device, 'battery_level'> }) {
  if (device.battery_level === null) return <span class="muted">not reported</span>;
  const low = device.battery_level < LOW_BATTERY_PERCENT;
  return (
    <span class={low ? 'battery-low' : undefined}>
      {device.battery_level} %{low && ' (low)'}
    </span>
  );
}

export function ChargingState({ device }: { device: Pick<Device, 'is_charging' | 'battery_level'> }) {
  // A phone that has not reported yet has no charging state either (is_charging is only a default).
  if (device.battery_level === null) return <span class="muted">—</span>;
  return <span>{device.is_charging ? 'charging' : 'not charging'}</span>;
}
