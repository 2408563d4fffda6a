// "Last seen" of a device. The API tells whether a device is online but not when it was last
// heard from: an online device is seen now; an offline one shows the presence event that took
// it offline when this page saw it, otherwise its last update (heartbeats move updated_at, and
// so do settings changes, so it is an upper bound on the silence, not an exact time). A phone
// that never reported its battery has never been heard from at all.
import { formatAgo, formatTime } from '../../ui/format.ts';
import type { Device } from './device-types.ts';

export function LastSeen({ device, offlineSince }: { device: Pick<Device, 'is_online' | 'updated_at' | 'battery_level'>; offlineSince?: string | undefined }) {
  if (device.is_online) return <span>now</span>;
  if (device.battery_level === null && !offlineSince) return <span class="muted">never</span>;
  const at = offlineSince ?? device.updated_at;
  return (
    <time dateTime={at} title={formatTime(at)}>
      {formatAgo(at)}
    </time>
  );
}
