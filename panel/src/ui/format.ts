// How times, numbers and statuses read in the panel. Times are shown in the browser's zone.

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** "3 min ago"; the exact time goes in the element's title. */
export function formatAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

/** Status names as the API spells them, made readable: "failed_send" → "failed send". */
export function statusLabel(status: string): string {
  return status.replace(/_/g, ' ');
}

const STATUS_TONES: Record<string, string> = {
  pending: 'neutral',
  scheduled: 'neutral',
  processing: 'info',
  sent: 'info',
  delivered: 'good',
  failed_send: 'bad',
  failed_delivery: 'bad',
  expired: 'bad',
  cancelled: 'bad',
};

export function statusTone(status: string): string {
  return STATUS_TONES[status] ?? 'neutral';
}
