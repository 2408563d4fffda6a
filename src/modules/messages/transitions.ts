// The SMS state machine, written once. Statuses move forward along one path and never back:
//
//   pending -> processing -> sent -> delivered | undelivered | failed_delivery
//                     \-> failed_send
//
// Device reports are idempotent and order-tolerant: a duplicate changes nothing, a report that
// skips steps ("delivered" before "sent") is accepted and the skipped steps are recorded as
// implied, and a report that would move backwards ("sent" after "delivered") is ignored.
import type { SmsStatus } from './status.ts';

const PREVIOUS: Record<SmsStatus, SmsStatus | undefined> = {
  pending: undefined,
  processing: 'pending',
  sent: 'processing',
  failed_send: 'processing',
  delivered: 'sent',
  undelivered: 'sent',
  failed_delivery: 'sent',
};

export const FINAL_STATUSES: ReadonlySet<SmsStatus> = new Set(['delivered', 'undelivered', 'failed_delivery', 'failed_send']);

export function isFinal(status: SmsStatus): boolean {
  return FINAL_STATUSES.has(status);
}

/**
 * The statuses an SMS passes through to get from `from` to `to`, `to` last; empty when the
 * report changes nothing or would move the SMS backwards or sideways.
 */
export function transitionPath(from: SmsStatus, to: SmsStatus): SmsStatus[] {
  const path: SmsStatus[] = [];
  for (let step: SmsStatus | undefined = to; step !== undefined; step = PREVIOUS[step]) {
    if (step === from) return path.reverse();
    path.push(step);
  }
  return [];
}
