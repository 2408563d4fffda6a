// The webhook body of a received SMS (sms.received).
import { envelope, type EventEnvelope } from '../webhooks/event-contract.ts';

export function smsReceived(
  accountId: string,
  received: { id: string; device_id: string | null; phone: string; message: string; sim_slot: number | null; received_at: Date; is_encrypted?: boolean; upstream_id?: string | null },
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
      // Through an upstream provider, not a phone: device_id is null.
      ...(received.upstream_id ? { upstream_id: received.upstream_id } : {}),
    },
  });
}
