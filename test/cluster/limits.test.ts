// Limits on several nodes: per-device windows and rate limits are counted in PostgreSQL under
// the device row lock, so they hold however many nodes serve the account. A phone holds its
// connection on one node while SMS come in through both; and a phone that moves to the other
// node finds there what it used on the first. The phones never report on their own (TaskPhone),
// so the test decides when a slot could open; each node's sweep is run at once rather than
// waited for.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { deviceTopic } from '../../broker/topics.ts';
import { TaskPhone } from '../support/task-phone.ts';
import { useCluster, within } from './cluster-fixture.ts';

const PHONE = '+79161234567';
const NO_RATE_LIMITS = { per_minute: null, per_hour: null, per_day: null };

describe('per-device limits across nodes', function () {
  const cluster = useCluster();
  const { fx } = cluster;

  /** Creates `count` SMS for the account's pool, one at a time, alternately through node A and node B. */
  async function postAlternately(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const api = i % 2 === 0 ? fx.tenant.api : cluster.onB(fx.tenant);
      const created = await api.post('/sms', { phone: PHONE, message: `limited ${i}` });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      ids.push(created.body.id);
    }
    return ids;
  }

  /**
   * Gives every node the chance to hand the phone more: both run their sweep (the safety net
   * that finds work created on another node), twice, since a sweep already running may have
   * looked before the last SMS was created; then the phone has received whatever was published.
   */
  async function settle(phone: TaskPhone): Promise<void> {
    for (let round = 0; round < 2; round++) {
      await Promise.all([fx.gateway, cluster.b].map((node) => node.services.dispatcher.sweep()));
      await phone.settle();
    }
  }

  /** The phone's queue as node B shows it (GET /devices/{id}). */
  async function queueOnB(phone: TaskPhone): Promise<Record<string, unknown>> {
    const device = await cluster.onB(fx.tenant).get(`/devices/${phone.id}`);
    expect(device.status).to.equal(200);
    return device.body.queue;
  }

  /** Moves the phone to `node`: its connection here ends, then it connects there (a fresh session). */
  async function move(phone: TaskPhone, from: Gateway, to: Gateway): Promise<TaskPhone> {
    await phone.stop();
    await within(5_000, async () => !from.channel.isReady(phone.id));
    return fx.track(await TaskPhone.reconnect(to, phone));
  }

  it('when 2N+2 SMS come through node A and node B for a phone on A with per_minute N, then exactly N reach it within the minute, the oldest, and the rest wait', async function () {
    this.timeout(15_000);
    const N = 5;
    const phone = fx.track(await TaskPhone.connect(fx.gateway, fx.tenant, { send_window: 50, limits: { ...NO_RATE_LIMITS, per_minute: N } }));
    const ids = await postAlternately(2 * N + 2);
    await phone.until(N);
    // Sent at once: only the rate limit can hold the rest back.
    await phone.sendAll();
    await settle(phone);

    expect(phone.total, 'tasks handed to the phone within the minute').to.equal(N);
    expect(phone.done.map((task) => task.sms_id)).to.have.members(ids.slice(0, N));
    expect(await queueOnB(phone)).to.include({ sent_last_minute: N, blocked_by: 'per_minute' });
    const waiting = await cluster.onB(fx.tenant).get('/sms?status=pending&limit=100');
    expect(waiting.body.data.map((sms: { id: string; device_id: string | null }) => [sms.id, sms.device_id])).to.have.deep.members(
      ids.slice(N).map((id) => [id, null]),
    );
  });

  it('when the phone moves from node A to node B within the minute, then B hands it only what is left of its per_minute limit', async function () {
    this.timeout(15_000);
    const onA = fx.track(await TaskPhone.connect(fx.gateway, fx.tenant, { send_window: 3, limits: { ...NO_RATE_LIMITS, per_minute: 5 } }));
    const ids = await postAlternately(10);
    await onA.until(3);
    await settle(onA);
    expect(onA.total, 'a full window on A').to.equal(3);
    for (const task of onA.tasks) await onA.report(task.sms_id, 'processing');

    const onB = await move(onA, fx.gateway, cluster.b);
    // B publishes again the three in flight; once they are sent, the limit leaves room for two.
    await onB.until(3);
    await onB.sendAll();
    await onB.until(5);
    await settle(onB);

    expect(onB.total, 'the three again and two new').to.equal(5);
    expect(new Set([...onA.done, ...onA.tasks, ...onB.done, ...onB.tasks].map((task) => task.sms_id))).to.have.keys(ids.slice(0, 5));
    expect(await queueOnB(onB)).to.include({ sent_last_minute: 5, blocked_by: 'per_minute' });
  });

  it('when SMS come through node A and node B for a phone on A with send_window W, then it never holds more than W, and each finished task lets one more in', async function () {
    this.timeout(15_000);
    const W = 3;
    const TOTAL = 3 * W;
    const phone = fx.track(await TaskPhone.connect(fx.gateway, fx.tenant, { send_window: W, limits: NO_RATE_LIMITS }));
    // Counted when each task arrives. A task is counted finished before its report goes out, so
    // a task handed out the moment that report commits is never counted one too many.
    let finished = 0;
    let mostInFlight = 0;
    const acknowledged = new Set<string>();
    phone.client.on('message', (topic) => {
      if (topic === deviceTopic(phone.id, 'tasks')) mostInFlight = Math.max(mostInFlight, phone.total - finished);
    });
    const ids = await postAlternately(TOTAL);

    while (finished < TOTAL) {
      const handed = Math.min(TOTAL, finished + W);
      await phone.until(handed);
      // Acknowledged: taken is taken, no node may give these to anyone else.
      for (const task of phone.tasks.filter((each) => !acknowledged.has(each.sms_id))) {
        await phone.report(task.sms_id, 'processing');
        acknowledged.add(task.sms_id);
      }
      await settle(phone);
      expect(phone.total, `handed out with ${finished} finished`).to.equal(handed);
      if (finished === 0) expect(await queueOnB(phone)).to.include({ in_flight: W, blocked_by: 'window' });
      const task = phone.tasks.shift()!;
      finished++;
      await phone.report(task.sms_id, 'sent');
    }

    expect(mostInFlight, 'most tasks in flight at once').to.equal(W);
    expect(phone.total).to.equal(TOTAL);
    const sent = await cluster.onB(fx.tenant).get('/sms?status=sent&limit=100');
    expect(sent.body.data.map((sms: { id: string }) => sms.id)).to.have.members(ids);
  });
});
