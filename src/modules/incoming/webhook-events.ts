// The webhook body of a received SMS (sms.received).
import { envelope, type EventEnvelope } from '../webhooks/event-contract.ts';

export function smsReceived(
  accountId: string,
  received: { id: string; device_id: string; phone: string; message: string; sim_slot: number | null; received_at: Date; is_encrypted?: boolean },
): EventEnvelope {
  return envelope('sms.received', accountId, {
    sms: {
      id: received.id,
      device_id: received.device_id,
      phone: received.phone,
      message: received.message,
      sim_slot: received.sim_slot,
      received_at: received.received_at.toISOString(),
      // Ciphertext from the phone, passed on as it came.
      ...(received.is_encrypted ? { is_encrypted: true } : {}),
    },
  });
}
