// The SMPP message_state of an SMS, and the "stat:" word of its delivery receipt, from the
// gateway's own statuses. pending and processing are still on their way (ENROUTE), as is sent:
// a phone has sent it and its delivery report may follow.
import type { SmsStatus } from '../messages/status.ts';

export const MESSAGE_STATE = {
  ENROUTE: 1,
  DELIVERED: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIVERABLE: 5,
  ACCEPTED: 6,
  UNKNOWN: 7,
  REJECTED: 8,
} as const;

export interface SmppOutcome {
  state: number;
  /** The receipt's stat: word, 7 characters as ESMEs parse it. */
  stat: string;
  /** Whether this is a final state (a receipt is owed for it). */
  final: boolean;
  /** Whether it is a failure (registered_delivery 2 asks for receipts of failures only). */
  failure: boolean;
}

export function smppOutcome(status: SmsStatus, reason: string | null): SmppOutcome {
  switch (status) {
    case 'delivered':
      return { state: MESSAGE_STATE.DELIVERED, stat: 'DELIVRD', final: true, failure: false };
    case 'undelivered':
    case 'failed_delivery':
      return { state: MESSAGE_STATE.UNDELIVERABLE, stat: 'UNDELIV', final: true, failure: true };
    case 'failed_send':
      if (reason === 'expired') return { state: MESSAGE_STATE.EXPIRED, stat: 'EXPIRED', final: true, failure: true };
      if (reason === 'cancelled') return { state: MESSAGE_STATE.DELETED, stat: 'DELETED', final: true, failure: true };
      return { state: MESSAGE_STATE.REJECTED, stat: 'REJECTD', final: true, failure: true };
    default:
      return { state: MESSAGE_STATE.ENROUTE, stat: 'ENROUTE', final: false, failure: false };
  }
}

/** registered_delivery's lowest two bits: 1, a receipt of the final outcome; 2, of a failure only. */
export function receiptWanted(registeredDelivery: number, outcome: SmppOutcome): boolean {
  if (!outcome.final) return false;
  const wanted = registeredDelivery & 0x03;
  return wanted === 1 || (wanted === 2 && outcome.failure);
}
