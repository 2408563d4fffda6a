// The send task a device receives (docs/asyncapi.yaml, message SendTask).
import { randomInt } from 'node:crypto';
import type { DeviceRow } from '../devices/types.ts';
import type { SmsRecord } from '../messages/types.ts';
import type { SendTask } from '../../../agent/src/protocol/messages.ts';

// One definition of the task, the device agent's: what the gateway sends is what the agent reads.
export type { SendTask };

/** How a task reaches a phone (a device link's sendTask). */
export type TaskSender = (deviceId: string, task: SendTask) => Promise<void>;

/**
 * One way to the phone for the tasks of one kind, another for the rest: a link that completes
 * the tasks of its kind on the way (an MMS's parts) is on the way of those only, and every other
 * task goes straight on, without a call into the code of a kind it is not.
 */
export function sendingByKind(kind: NonNullable<SendTask['kind']>, ofKind: TaskSender, rest: TaskSender): TaskSender {
  return function sendTaskOfItsKind(deviceId, task) {
    return task.kind === kind ? ofKind(deviceId, task) : rest(deviceId, task);
  };
}

/** A retry's attempt number and SIM, or SIMs to keep away from (paused, or failed this SMS before). */
export interface TaskRouting {
  attempt: number;
  sim?: number;
  avoid?: number[];
}

export function buildTask(sms: SmsRecord, device: Pick<DeviceRow, 'selected_sim' | 'sim_cards'>, routing?: TaskRouting): SendTask {
  return {
    sms_id: sms.id,
    phone: sms.phone,
    message: sms.message,
    sim: routing?.sim ?? resolveSim(sms.sim_slot, device, routing?.avoid),
    created_at: sms.created_at.toISOString(),
    valid_until: sms.expires_at?.toISOString() ?? null,
    // Only on what is not a plain text SMS, so that a text task reads as it always has.
    ...(sms.is_encrypted ? { is_encrypted: true } : {}),
    ...(sms.kind === 'data' && sms.data !== null && sms.data_port !== null ? { data: sms.data, port: sms.data_port } : {}),
    // An MMS's subject and parts are added on the way to the phone (src/modules/mms/task-link.ts).
    ...(sms.kind === 'mms' ? { kind: 'mms' as const } : {}),
    // A phone takes a task with a higher attempt than the one it failed as a new task.
    ...(routing && routing.attempt > 1 ? { attempt: routing.attempt } : {}),
  };
}

/**
 * A slot named at creation (legacy to_sim) wins; otherwise the device's selected_sim:
 * -1 picks one of the SIMs the device reported, at dispatch; -2 leaves the choice to the phone.
 */
export function resolveSim(requested: number | null, device: Pick<DeviceRow, 'selected_sim' | 'sim_cards'>, avoid: number[] = []): number {
  const choice = requested ?? device.selected_sim;
  // `avoid`: SIMs paused or failed for this SMS; another reported SIM is named instead, when
  // there is one (a slot the client named stays).
  if (avoid.length > 0 && requested === null && (choice < 0 || avoid.includes(choice))) {
    const open = device.sim_cards.map((card) => card.index).filter((slot) => !avoid.includes(slot));
    if (open.length > 0) return choice === -1 ? open[randomInt(open.length)]! : open[0]!;
  }
  if (choice !== -1) return choice;
  const slots = device.sim_cards.map((card) => card.index);
  return slots.length > 0 ? slots[randomInt(slots.length)]! : -2;
}
