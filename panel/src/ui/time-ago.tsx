// A time said as "3 min ago" (or "never"), with the exact time in its title.
import { formatAgo, formatTime } from './format.ts';

export function TimeAgo({ at }: { at: string | null }) {
  return <span title={at ? formatTime(at) : undefined}>{formatAgo(at)}</span>;
}
