// Our statuses (src/modules/messages/status.ts) in Twilio's words. "processing" (a phone holds
// the task) is Twilio's "sending"; a pending SMS whose send_at is ahead is "scheduled"; a cancel
// ends an SMS as failed_send with reason "cancelled", which Twilio calls "canceled".
import type { SmsStatus } from '../messages/status.ts';

export type TwilioStatus = 'queued' | 'scheduled' | 'sending' | 'sent' | 'delivered' | 'undelivered' | 'failed' | 'canceled';

export function twilioStatus(status: SmsStatus, reason: string | null, sendAt: Date | null = null, now = Date.now()): TwilioStatus {
  switch (status) {
    case 'pending':
      return sendAt && sendAt.getTime() > now ? 'scheduled' : 'queued';
    case 'processing':
      return 'sending';
    case 'sent':
      return 'sent';
    case 'delivered':
      return 'delivered';
    case 'undelivered':
      return 'undelivered';
    case 'failed_delivery':
      return 'undelivered';
    case 'failed_send':
      return reason === 'cancelled' ? 'canceled' : 'failed';
  }
}

/**
 * Twilio's error code for an SMS that ended without being delivered: 30001 (queue overflow) for
 * one that expired before a phone took it, 30003 (unreachable) for one the network did not
 * deliver, 30008 (unknown) for the rest. Null while nothing went wrong, and for a cancel.
 */
export function twilioErrorCode(status: SmsStatus, reason: string | null): number | null {
  if (status === 'failed_send') {
    if (reason === 'cancelled') return null;
    return reason === 'expired' ? 30001 : 30008;
  }
  if (status === 'undelivered' || status === 'failed_delivery') return 30003;
  return null;
}

export function twilioErrorMessage(code: number | null, reason: string | null): string | null {
  if (code === null) return null;
  const names: Record<number, string> = { 30001: 'Queue overflow', 30003: 'Unreachable destination handset', 30008: 'Unknown error' };
  return reason ? `${names[code]} (${reason})` : names[code]!;
}
