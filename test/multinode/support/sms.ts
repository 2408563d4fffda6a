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

/** The status of each of `ids`, read from the list (GET /sms, newest first, page after page): one request per 100 SMS. */
export async function statusesOf(api: ApiClient, ids: string[]): Promise<Map<string, string>> {
  const wanted = new Set(ids);
  const found = new Map<string, string>();
  let cursor: string | null = null;
  do {
    const reply = await api.get(`/sms?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    for (const sms of reply.body.data as { id: string; status: string }[]) if (wanted.has(sms.id)) found.set(sms.id, sms.status);
    cursor = reply.body.next_cursor as string | null;
  } while (cursor && found.size < wanted.size);
  return found;
}

/** Whether every one of `ids` is delivered; otherwise undefined (for until()). */
export async function allDelivered(api: ApiClient, ids: string[]): Promise<true | undefined> {
  const statuses = await statusesOf(api, ids);
  return ids.every((id) => statuses.get(id) === 'delivered') || undefined;
}

/** How many of `ids` stand at each status, for a timed-out wait's message. */
export async function statusSummary(api: ApiClient, ids: string[]): Promise<string> {
  const counts: Record<string, number> = {};
  const statuses = await statusesOf(api, ids);
  for (const id of ids) {
    const status = statuses.get(id) ?? 'not listed';
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return Object.entries(counts).map(([status, count]) => `${count} ${status}`).join(', ');
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
