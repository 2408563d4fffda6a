// The send task a device receives (docs/asyncapi.yaml, message SendTask).
import { randomInt } from 'node:crypto';
import type { DeviceRow } from '../devices/types.ts';
import type { SmsRecord } from '../messages/types.ts';
import type { SendTask } from '../../../agent/src/protocol/messages.ts';

// One definition of the task, the device agent's: what the gateway sends is what the agent reads.
export type { SendTask };

export function buildTask(sms: SmsRecord, device: Pick<DeviceRow, 'selected_sim' | 'sim_cards'>): SendTask {
  return {
    sms_id: sms.id,
    phone: sms.phone,
    message: sms.message,
    sim: resolveSim(sms.sim_slot, device),
    created_at: sms.created_at.toISOString(),
    valid_until: sms.expires_at?.toISOString() ?? null,
    // Only on what is not a plain text SMS, so that a text task reads as it always has.
    ...(sms.is_encrypted ? { is_encrypted: true } : {}),
    ...(sms.kind === 'data' && sms.data !== null && sms.data_port !== null ? { data: sms.data, port: sms.data_port } : {}),
    // An MMS's subject and parts are added on the way to the phone (src/modules/mms/task-link.ts).
    ...(sms.kind === 'mms' ? { kind: 'mms' as const } : {}),
  };
}

/**
 * A slot named at creation (legacy to_sim) wins; otherwise the device's selected_sim:
 * -1 picks one of the SIMs the device reported, at dispatch; -2 leaves the choice to the phone.
 */
export function resolveSim(requested: number | null, device: Pick<DeviceRow, 'selected_sim' | 'sim_cards'>): number {
  const choice = requested ?? device.selected_sim;
  if (choice !== -1) return choice;
  const slots = device.sim_cards.map((card) => card.index);
  return slots.length > 0 ? slots[randomInt(slots.length)]! : -2;
}
