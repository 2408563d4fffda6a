// SMS statuses as the legacy family numbers and labels them, written once beside the statuses
// themselves (the legacy API, its webhooks and the Extended API's search all read them). Labels
// are stable English words, one per number; the legacy API documents only the meaning of 0 and 4.
import type { SmsStatus } from './status.ts';

export const LEGACY_STATUS: Record<SmsStatus, number> = {
  pending: 0,
  processing: 1,
  sent: 2,
  failed_send: 3,
  delivered: 4,
  undelivered: 5,
  failed_delivery: 5,
};

export const LEGACY_LABELS = ['waiting', 'processing', 'sent', 'failed', 'delivered', 'undelivered'] as const;

export function legacyLabel(status: SmsStatus): string {
  return LEGACY_LABELS[LEGACY_STATUS[status]]!;
}

/** Internal statuses whose label contains `text`, case-insensitively (the search over message_status). */
export function statusesMatching(text: string): SmsStatus[] {
  const needle = text.toLowerCase();
  return (Object.keys(LEGACY_STATUS) as SmsStatus[]).filter((status) => legacyLabel(status).includes(needle));
}
