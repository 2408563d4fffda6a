// "Last seen" of a device: now while it is online; otherwise when it last reported (the API's
// last_seen_at), or the presence event that took it offline if this page saw a later one.
import { formatAgo, formatTime } from '../../ui/format.ts';
import type { Device } from '../../api/types.ts';

export function LastSeen({ device, offlineSince }: { device: Pick<Device, 'is_online' | 'last_seen_at'>; offlineSince?: string | undefined }) {
  if (device.is_online) return <span>now</span>;
  const at = latest(device.last_seen_at, offlineSince);
  if (!at) return <span class="muted">never</span>;
  return (
    <time dateTime={at} title={formatTime(at)}>
      {formatAgo(at)}
    </time>
  );
}

function latest(a: string | null | undefined, b: string | null | undefined): string | undefined {
  if (!a) return b ?? undefined;
  if (!b) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}
