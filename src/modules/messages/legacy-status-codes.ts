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

/**
 * The status the legacy family shows for an SMS: one waiting for another attempt after a phone had
 * taken it (pending, attempt above 1) is still taken into processing (1), as a status never moves
 * back (docs/delivery.md).
 */
export function legacyStatusOf(sms: { status: SmsStatus; attempt?: number }): SmsStatus {
  return sms.status === 'pending' && (sms.attempt ?? 1) > 1 ? 'processing' : sms.status;
}

/** Internal statuses whose label contains `text`, case-insensitively (the search over message_status). */
export function statusesMatching(text: string): SmsStatus[] {
  const needle = text.toLowerCase();
  return (Object.keys(LEGACY_STATUS) as SmsStatus[]).filter((status) => legacyLabel(status).includes(needle));
}

/**
 * What a search over message_status matches, by the label each SMS is shown with: the statuses
 * whose label contains `text`, where pending stands for an SMS on its first attempt (waiting), and
 * whether a pending SMS waiting for another attempt matches, which legacyStatusOf shows as
 * processing. By status alone, "processing" would miss such an SMS and "waiting" would find it.
 */
export function labelsMatching(text: string): { statuses: SmsStatus[]; retrying: boolean } {
  return { statuses: statusesMatching(text), retrying: legacyLabel('processing').includes(text.toLowerCase()) };
}
