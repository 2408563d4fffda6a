// The SIM breaker and send_jitter. A SIM that fails with the same retryable error several times
// in a row is paused (sim.paused webhook, shown in GET /devices/{id}) and tasks name the phone's
// other SIM; a phone with send_jitter is handed its tasks one at a time with a pause between
// them, while other phones are not held back. Real broker, real MQTT phones, ManualClock; the
// hand-out times are read from the rows, never from wall-clock sleeps.
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { TaskPhone } from '../support/task-phone.ts';
import { createWebhook, dropWebhooks, webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { dispatchTimesOf, dispatchTimesOfDevice } from '../support/test-data.ts';

const PHONE = '+79161234567';
const NO_LIMITS = { per_minute: null, per_hour: null, per_day: null };
const SIM_PAUSE_MS = 600_000;

describe('delivery: the SIM breaker and send_jitter', () => {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const fx = useGateway({ clock, config: { webhooks: webhookConfig(), simPauseAfterFailures: 3, simPauseForMs: SIM_PAUSE_MS } });
  const phones: TaskPhone[] = [];
  const simsOf = new Map<TaskPhone, number[]>();

  afterEach(async () => {
    phones.splice(0);
    await dropWebhooks(fx.gateway, [fx.tenant.accountId]);
  });

  async function phone(slots: number[], settings: Record<string, unknown> = {}): Promise<TaskPhone> {
    const connected = await fx.taskPhone({ send_window: 10, limits: NO_LIMITS, ...settings });
    simsOf.set(connected, slots);
    await heartbeat(connected);
    phones.push(connected);
    return connected;
  }

  async function heartbeat(of: TaskPhone): Promise<void> {
    const cards = (simsOf.get(of) ?? []).map((index) => ({ index, name_operator: `Operator ${index}` }));
    await of.client.publishAsync(deviceTopic(of.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: cards }), { qos: 2 });
  }

  async function later(ms: number): Promise<void> {
    clock.advance(ms);
    for (const each of phones) await heartbeat(each);
    await fx.gateway.services.dispatcher.sweep();
    for (const each of phones) await each.settle();
  }

  async function send(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'paced or paused', ...extra });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id;
  }

  describe('when one SIM of a phone keeps failing with the same error', () => {
    it('then after 3 in a row it is paused (sim.paused, GET /devices/{id}), the next tasks name the other SIM, and a send from it resets nothing else', async () => {
      const receiver = await fx.receiver();
      await createWebhook(fx.tenant, receiver.url, ['sim.paused']);
      // One attempt each: the failures are final, and each counts for SIM 0.
      const dual = await phone([0, 1], { selected_sim: 0, max_send_attempts: 1 });
      for (let i = 0; i < 3; i++) {
        const id = await send({ device_id: dual.id });
        await dual.until(i + 1);
        expect(dual.tasks[i]).to.include({ sms_id: id, sim: 0 });
        await dual.reportWith(id, 'failed_send', { error_code: 'no_service', sim_slot: 0 });
      }
      const [paused] = await receiver.waitFor(1);
      const event = paused!.json;
      expect(event.type).to.equal('sim.paused');
      expect(event.data.device).to.include({ id: dual.id });
      expect(event.data.sim).to.include({ sim_slot: 0, paused_until: new Date(clock.now() + SIM_PAUSE_MS).toISOString() });
      expect(event.data.sim.reason).to.contain('no_service');

      const detail = await fx.tenant.api.get(`/devices/${dual.id}`);
      expect(detail.body.queue.paused_sims).to.deep.equal([{ sim_slot: 0, paused_until: event.data.sim.paused_until, reason: event.data.sim.reason }]);
      expect(detail.body.paused_until, 'the phone itself still sends, from its other SIM').to.equal(null);

      const next = await send({ device_id: dual.id });
      await dual.until(4);
      expect(dual.tasks[3]).to.include({ sms_id: next, sim: 1 });
      await dual.reportWith(next, 'sent', { sim_slot: 1 });

      // Once the pause is over SIM 0 is named again.
      await later(SIM_PAUSE_MS);
      const after = await send({ device_id: dual.id });
      await dual.until(5);
      expect(dual.tasks[4]).to.include({ sms_id: after, sim: 0 });
    });

    it('then different errors in a row do not pause it', async () => {
      const dual = await phone([0, 1], { selected_sim: 0, max_send_attempts: 1 });
      for (const [i, code] of ['no_service', 'no_credit', 'no_service'].entries()) {
        const id = await send({ device_id: dual.id });
        await dual.until(i + 1);
        await dual.reportWith(id, 'failed_send', { error_code: code, sim_slot: 0 });
      }
      await fx.gateway.services.dispatcher.sweep();
      expect((await fx.tenant.api.get(`/devices/${dual.id}`)).body.queue.paused_sims).to.deep.equal([]);
    });

    it('then a phone whose only SIM is paused is paused itself, and its pool work goes to other phones', async () => {
      const single = await phone([0], { max_send_attempts: 1 });
      for (let i = 0; i < 3; i++) {
        const id = await send({ device_id: single.id });
        await single.until(i + 1);
        await single.reportWith(id, 'failed_send', { error_code: 'radio_off', sim_slot: 0 });
      }
      // The pause is counted after the reports commit: wait for it through the API.
      let device: any;
      for (let i = 0; i < 50 && !device?.paused_until; i++) {
        device = (await fx.tenant.api.get(`/devices/${single.id}`)).body;
        if (!device.paused_until) await new Promise((resolve) => setImmediate(resolve));
      }
      expect(device.paused_reason).to.contain('every SIM paused');
      const other = await phone([0]);
      const pooled = await send();
      await other.until(1);
      expect(other.tasks[0]!.sms_id).to.equal(pooled);
      expect(single.total).to.equal(3);
    });

    it('then PATCH paused: false ends the SIM pauses too', async () => {
      const dual = await phone([0, 1], { selected_sim: 0, max_send_attempts: 1 });
      for (let i = 0; i < 3; i++) {
        const id = await send({ device_id: dual.id });
        await dual.until(i + 1);
        await dual.reportWith(id, 'failed_send', { error_code: 'no_service', sim_slot: 0 });
      }
      let paused: unknown[] = [];
      for (let i = 0; i < 50 && paused.length === 0; i++) paused = (await fx.tenant.api.get(`/devices/${dual.id}`)).body.queue.paused_sims;
      expect(paused).to.have.length(1);
      const resumed = await fx.tenant.api.patch(`/devices/${dual.id}/settings`, { paused: false });
      expect(resumed.status).to.equal(200);
      expect(resumed.body.queue.paused_sims).to.deep.equal([]);
    });
  });

  describe('when a simulated phone (the device agent) has a failing SIM', () => {
    it('then its failed send is retried on its other SIM and delivered, sent once', async () => {
      const simulated = await fx.connectDevice({
        simCards: [
          { index: 0, name_operator: 'Broken' },
          { index: 1, name_operator: 'Working' },
        ],
        failSims: new Map([[0, 'no_service']]),
        delays: { processing: 0, sent: 0, delivered: 0 },
      });
      const device = { id: simulated.id };
      await fx.tenant.api.patch(`/devices/${device.id}/settings`, { selected_sim: 0 });
      try {
        await simulated.heartbeat();
        const id = await send({ device_id: device.id });
        // The backoff is on the gateway's clock: move it, and let the sweep hand the retry out.
        await eventually('the retry handed to the working SIM', async () => {
          if (simulated.radio.sendCount.get(id) !== undefined) return true;
          clock.advance(30_000);
          await fx.gateway.services.dispatcher.sweep();
          return false;
        });
        expect(simulated.radio.sendCount.get(id)).to.equal(1);
        await eventually('the SMS delivered', async () => (await fx.tenant.api.get(`/sms/${id}`)).body.status === 'delivered');
        const attempts = (await fx.tenant.api.get(`/sms/${id}/attempts`)).body.data;
        expect(attempts.map((attempt: any) => [attempt.sim_slot, attempt.result, attempt.error_code])).to.deep.equal([
          [0, 'failed', 'no_service'],
          [1, 'sent', null],
        ]);
      } finally {
        await simulated.stop();
      }
    });
  });

  describe('when a phone has send_jitter', () => {
    it('then its tasks are handed out one at a time, each after the drawn pause, while another phone takes all of its own at once', async () => {
      const jittery = await phone([0], { send_jitter: { min_seconds: 45, max_seconds: 45 } });
      const steady = await phone([0]);
      const forJittery = [await send({ device_id: jittery.id }), await send({ device_id: jittery.id }), await send({ device_id: jittery.id })];
      for (let i = 0; i < 3; i++) await send({ device_id: steady.id });
      await steady.until(3);
      await jittery.until(1);
      await jittery.settle();
      expect(jittery.total, 'one task, then a pause').to.equal(1);
      const detail = await fx.tenant.api.get(`/devices/${jittery.id}`);
      expect(detail.body.send_jitter).to.deep.equal({ min_seconds: 45, max_seconds: 45 });
      expect(detail.body.queue.blocked_by).to.equal('jitter');

      await later(44_000);
      expect(jittery.total, 'not before the pause ends').to.equal(1);
      await later(1_000);
      await jittery.until(2);
      await later(45_000);
      await jittery.until(3);

      const times = await dispatchTimesOf(fx, forJittery);
      expect([times[1]! - times[0]!, times[2]! - times[1]!]).to.deep.equal([45_000, 45_000]);
      const steadyTimes = await dispatchTimesOfDevice(fx, steady.id);
      expect(new Set(steadyTimes).size, 'the other phone was handed all three at once').to.equal(1);
    });

    it('then a pause drawn between min_seconds and max_seconds spaces pool sends too, and null turns it off', async () => {
      const jittery = await phone([0], { send_jitter: { min_seconds: 10, max_seconds: 20 } });
      for (let i = 0; i < 3; i++) await send();
      await jittery.until(1);
      await later(9_999);
      expect(jittery.total).to.equal(1);
      await later(10_001);
      await jittery.until(2);
      const off = await fx.tenant.api.patch(`/devices/${jittery.id}/settings`, { send_jitter: null });
      expect(off.body.send_jitter).to.equal(null);
      await jittery.until(3);
    });
  });

  describe('when settings are out of range', () => {
    const bad: [string, Record<string, unknown>][] = [
      ['min above max', { send_jitter: { min_seconds: 30, max_seconds: 10 } }],
      ['max above an hour', { send_jitter: { min_seconds: 0, max_seconds: 3601 } }],
      ['a negative pause', { send_jitter: { min_seconds: -1, max_seconds: 10 } }],
      ['a fraction', { send_jitter: { min_seconds: 1.5, max_seconds: 10 } }],
      ['a missing bound', { send_jitter: { min_seconds: 1 } }],
      ['an unknown member', { send_jitter: { min_seconds: 1, max_seconds: 2, every: 3 } }],
      ['max_send_attempts 0', { max_send_attempts: 0 }],
      ['max_send_attempts 6', { max_send_attempts: 6 }],
      ['max_send_attempts as text', { max_send_attempts: '2' }],
    ];
    for (const [what, body] of bad) {
      it(`then ${what} is 400 validation_failed, and nothing changes`, async () => {
        const target = await phone([0]);
        const reply = await fx.tenant.api.patch(`/devices/${target.id}/settings`, body);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
        expect(reply.body.error.code).to.equal('validation_failed');
        const device = (await fx.tenant.api.get(`/devices/${target.id}`)).body;
        expect(device).to.include({ send_jitter: null, max_send_attempts: null });
      });
    }

    it('then the accepted bounds are stored and shown', async () => {
      const target = await phone([0]);
      const reply = await fx.tenant.api.patch(`/devices/${target.id}/settings`, { send_jitter: { min_seconds: 0, max_seconds: 3600 }, max_send_attempts: 5 });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body).to.deep.include({ send_jitter: { min_seconds: 0, max_seconds: 3600 }, max_send_attempts: 5 });
    });
  });
});
