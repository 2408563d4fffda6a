// SMS through a node's Extended API, and what a test checks of each: where it stands and how
// many times each status was recorded in its history (every status at most once, whichever
// nodes the reports came through).
import { expect } from 'chai';
import type { SendTask } from '../../../src/modules/delivery/task.ts';
import type { SimulatedDevice } from '../../../src/simulator/device.ts';
import { nextEvent } from '../../support/devices.ts';
import type { ApiClient } from '../../support/tenant.ts';

export const PHONE_NUMBER = '+79161234567';

/** POST /sms; expects 201 and answers the SMS id. */
export async function sendSms(api: ApiClient, message: string, deviceId?: string): Promise<string> {
  const created = await api.post('/sms', { phone: PHONE_NUMBER, message, ...(deviceId ? { device_id: deviceId } : {}) });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return created.body.id as string;
}

export interface SmsState {
  status: string;
  deviceId: string | null;
  /** Internal status (processing included) -> how many times the history holds it. */
  historyCounts: Record<string, number>;
}

/** GET /sms/{id}; expects 200. */
export async function smsState(api: ApiClient, id: string): Promise<SmsState> {
  const reply = await api.get(`/sms/${id}`);
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  const historyCounts: Record<string, number> = {};
  for (const entry of reply.body.history as { internal_status: string }[]) {
    historyCounts[entry.internal_status] = (historyCounts[entry.internal_status] ?? 0) + 1;
  }
  return { status: reply.body.status as string, deviceId: reply.body.device_id as string | null, historyCounts };
}

/** Every status of the history recorded once, and the SMS delivered through each of them once. */
export function expectDeliveredOnce(state: SmsState, what: string): void {
  expect(state.status, `${what}: status`).to.equal('delivered');
  for (const [status, count] of Object.entries(state.historyCounts)) expect(count, `${what}: "${status}" in the history`).to.equal(1);
  expect(state.historyCounts, `${what}: history`).to.include({ sent: 1, delivered: 1 });
}

/**
 * Creates an SMS through `api` and answers its id and how long until `phone` received its task.
 * The SMS names the phone, unless `pool` (then the phone must be the account's only one online).
 */
export async function timeToTask(api: ApiClient, phone: SimulatedDevice, text: string, pool = false): Promise<{ id: string; ms: number }> {
  const received = nextEvent(phone, 'task', (task: SendTask) => task.message === text, 5_000);
  const started = performance.now();
  const id = await sendSms(api, text, pool ? undefined : phone.id);
  const [task] = await received;
  expect(task.sms_id).to.equal(id);
  return { id, ms: performance.now() - started };
}

/**
 * Times tasks made on the phone's own node and on other nodes, alternately, so that both see the
 * same load: a wake-up across nodes costs a Redis round trip more than one within a node, while
 * the sweep alone would cost half its interval more on average.
 */
export async function compareWakeUps(rounds: number, local: (i: number) => Promise<number>, remote: (i: number) => Promise<number>) {
  const locals: number[] = [];
  const remotes: number[] = [];
  for (let i = 0; i < rounds; i++) {
    locals.push(await local(i));
    remotes.push(await remote(i));
  }
  return { local: median(locals), remote: median(remotes), slowestRemote: Math.max(...remotes) };
}

/** The middle value. */
export function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)]!;
}
