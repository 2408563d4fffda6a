// Retrying failed sends: a send a phone reports failed with a retryable error_code goes round
// again, on another SIM of the phone or on another phone, after a backoff on the gateway's clock;
// a permanent error ends it at once; the client sees it pending until its last attempt, and one
// final status. Real broker, real MQTT phones (TaskPhone), time moved by the test (ManualClock).
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { deviceTopic } from '../../broker/topics.ts';
import { REJECTED_METRIC } from '../../broker/device-messages.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { TaskPhone } from '../support/task-phone.ts';
import type { Receiver } from '../support/receiver.ts';
import { createWebhook, dropWebhooks, webhookConfig } from '../support/webhooks.ts';
import { smsRow } from '../support/test-data.ts';

const PHONE = '+79161234567';
const BACKOFF_MS = 30_000;
const NO_LIMITS = { per_minute: null, per_hour: null, per_day: null };

describe('delivery: retrying failed sends', () => {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const fx = useGateway({ clock, config: { webhooks: webhookConfig(), sendRetryBackoffMs: BACKOFF_MS } });
  const phones: TaskPhone[] = [];
  const simsOf = new Map<TaskPhone, number[]>();
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = await fx.receiver();
    await createWebhook(fx.tenant, receiver.url, ['sms.status_changed']);
  });
  afterEach(async () => {
    phones.splice(0);
    await dropWebhooks(fx.gateway, [fx.tenant.accountId]);
  });

  /** A phone reporting these SIM slots, with pacing lifted unless `settings` say otherwise. */
  async function phone(slots: number[], settings: Record<string, unknown> = {}): Promise<TaskPhone> {
    const connected = await fx.taskPhone({ send_window: 10, limits: NO_LIMITS, ...settings });
    simsOf.set(connected, slots);
    await heartbeat(connected);
    phones.push(connected);
    return connected;
  }

  /** A heartbeat that reports the phone's SIM cards (TaskPhone's own reports none). */
  async function heartbeat(of: TaskPhone): Promise<void> {
    const cards = (simsOf.get(of) ?? []).map((index) => ({ index, name_operator: `Operator ${index}` }));
    await of.client.publishAsync(deviceTopic(of.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: cards }), { qos: 2 });
  }

  async function send(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'try again', ...extra });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id;
  }

  /** Moves the clock past the backoff and lets the sweep hand out what is due. */
  async function later(ms: number): Promise<void> {
    clock.advance(ms);
    for (const each of phones) await heartbeat(each);
    await fx.gateway.services.dispatcher.sweep();
    for (const each of phones) await each.settle();
  }

  async function status(id: string): Promise<string> {
    return (await fx.tenant.api.get(`/sms/${id}`)).body.status;
  }

  async function attempts(id: string): Promise<any[]> {
    const reply = await fx.tenant.api.get(`/sms/${id}/attempts`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body.data;
  }

  function fail(from: TaskPhone, id: string, errorCode: string, simSlot?: number): Promise<void> {
    return from.reportWith(id, 'failed_send', { error: `radio says ${errorCode}`, error_code: errorCode, ...(simSlot !== undefined ? { sim_slot: simSlot } : {}) });
  }

  function webhooksOf(id: string): Array<{ internal_status: string; status: string; attempt: number }> {
    return receiver.received.map((request) => request.json.data.sms).filter((sms: { id: string }) => sms.id === id);
  }

  describe('when the device holding an SMS it is sending is deleted', () => {
    it('then the SMS ends, and so does its attempt: failed, with the reason, at the moment of the deletion', async () => {
      const holder = await phone([0]);
      const id = await send();
      await holder.until(1);
      await holder.report(id, 'processing');
      expect((await attempts(id))[0]).to.include({ result: 'sending', ended_at: null });

      expect((await fx.tenant.api.delete(`/devices/${holder.id}`)).status).to.equal(204);
      expect(await status(id)).to.equal('failed_send');
      const [attempt, ...more] = await attempts(id);
      expect(more, 'no new attempt').to.deep.equal([]);
      expect(attempt).to.include({ attempt: 1, device_id: holder.id, result: 'failed', error: 'device_deleted', retried: false });
      expect(attempt.ended_at).to.equal(new Date(clock.now()).toISOString());
    });
  });

  describe('when a phone fails a pool SMS with a retryable error and has no other SIM', () => {
    it('then the SMS stays pending, goes to another phone after the backoff, is sent there, and the attempts and webhooks tell the story', async () => {
      const first = await phone([0]);
      const id = await send();
      await first.until(1);
      const second = await phone([0]);
      await first.report(id, 'processing');
      await fail(first, id, 'no_service', 0);

      expect(await status(id), 'not final: the client sees it waiting').to.equal('pending');
      const legacy = await smsRow(fx, id);
      expect(legacy).to.include({ status: 'pending', attempt: 2, device_id: null, avoid_device_id: first.id });

      await later(BACKOFF_MS - 1_000);
      expect(second.total, 'not before the backoff').to.equal(0);
      await later(1_000);
      await second.until(1);
      expect(second.tasks[0]).to.include({ sms_id: id, attempt: 2 });
      expect(first.total, 'the phone that failed it is not given it again').to.equal(1);
      await second.report(id, 'processing');
      await second.reportWith(id, 'sent', { sim_slot: 0 });
      expect(await status(id)).to.equal('sent');

      const timeline = await attempts(id);
      expect(timeline).to.have.length(2);
      expect(timeline[0]).to.include({ attempt: 1, device_id: first.id, sim_slot: 0, result: 'failed', error_code: 'no_service', retried: true });
      expect(timeline[1]).to.include({ attempt: 2, device_id: second.id, sim_slot: 0, result: 'sent', error_code: null, retried: false });
      expect(Date.parse(timeline[1].started_at) - Date.parse(timeline[0].ended_at)).to.equal(BACKOFF_MS);

      await receiver.waitFor(3);
      const hooks = webhooksOf(id);
      expect(hooks.map((sms) => [sms.internal_status, sms.attempt])).to.deep.equal([
        ['processing', 1],
        ['processing', 2],
        ['sent', 2],
      ]);
      expect(hooks.map((sms) => sms.status), 'no failure reaches the client').to.not.include('failed_send');
    });
  });

  describe('when a phone fails an SMS named for it on one of its two SIMs', () => {
    it('then it is tried again on the other SIM of that phone, and never given to another phone', async () => {
      const named = await phone([0, 1]);
      const other = await phone([0]);
      const id = await send({ device_id: named.id });
      await named.until(1);
      await named.report(id, 'processing');
      await fail(named, id, 'radio_off', 0);
      await later(BACKOFF_MS);
      await named.until(2);
      expect(named.tasks[1]).to.include({ sms_id: id, sim: 1, attempt: 2 });
      expect(other.total).to.equal(0);
      await named.report(id, 'processing');
      await named.reportWith(id, 'sent', { sim_slot: 1 });
      expect(await status(id)).to.equal('sent');
      expect((await attempts(id)).map((attempt) => [attempt.device_id, attempt.sim_slot, attempt.result])).to.deep.equal([
        [named.id, 0, 'failed'],
        [named.id, 1, 'sent'],
      ]);
    });

    for (const [simSlot, meaning] of [[-1, 'a random SIM'], [-2, 'the phone\'s default SIM']] as const) {
      it(`then one its client sent with sim_slot ${simSlot} (${meaning}, no SIM in particular) is tried again on the other SIM`, async () => {
        const named = await phone([0, 1]);
        const id = await send({ device_id: named.id, sim_slot: simSlot });
        await named.until(1);
        await named.report(id, 'processing');
        await fail(named, id, 'radio_off', 0);
        expect(await status(id)).to.equal('pending');
        await later(BACKOFF_MS);
        await named.until(2);
        expect(named.tasks[1]).to.include({ sms_id: id, sim: 1, attempt: 2 });
      });
    }

    it('then one its client sent from a SIM it named is not tried on another SIM: it fails, as the phone said', async () => {
      const named = await phone([0, 1]);
      const id = await send({ device_id: named.id, sim_slot: 0 });
      await named.until(1);
      await named.report(id, 'processing');
      await fail(named, id, 'radio_off', 0);
      expect(await status(id)).to.equal('failed_send');
    });

    it('then with no other SIM left it fails at once, as the phone said', async () => {
      const named = await phone([0]);
      await phone([0]);
      const id = await send({ device_id: named.id });
      await named.until(1);
      await named.report(id, 'processing');
      await fail(named, id, 'no_credit', 0);
      expect(await status(id)).to.equal('failed_send');
      expect((await attempts(id))[0]).to.include({ result: 'failed', retried: false });
    });
  });

  describe('when a phone fails with a permanent error (the number, not the SIM)', () => {
    for (const code of ['invalid_number', 'blocked', 'message_too_long', 'some_new_code']) {
      it(`then ${code} is not retried: failed_send at once, with the phone's words`, async () => {
        const first = await phone([0, 1]);
        const id = await send();
        await first.until(1);
        await phone([0]);
        await first.settle();
        await first.report(id, 'processing');
        await fail(first, id, code, 0);
        const sms = (await fx.tenant.api.get(`/sms/${id}`)).body;
        expect(sms.status).to.equal('failed_send');
        await later(4 * BACKOFF_MS);
        expect(phones.reduce((sum, each) => sum + each.total, 0), 'no phone is given it again').to.equal(1);
        expect((await attempts(id)).map((attempt) => [attempt.result, attempt.error_code, attempt.retried])).to.deep.equal([['failed', code, false]]);
      });
    }

    it('then a failure without an error_code (a phone older than error codes) is not retried either', async () => {
      const first = await phone([0, 1]);
      const id = await send();
      await first.until(1);
      await first.report(id, 'processing');
      await first.report(id, 'failed_send', 'something went wrong');
      expect(await status(id)).to.equal('failed_send');
    });
  });

  describe('when every attempt fails', () => {
    it('then after max_send_attempts (2 by default) the SMS ends failed_send, and the client hears failed_send once', async () => {
      const first = await phone([0]);
      const id = await send();
      await first.until(1);
      const second = await phone([0]);
      await first.report(id, 'processing');
      await fail(first, id, 'generic_failure', 0);
      await later(BACKOFF_MS);
      await second.until(1);
      await second.report(id, 'processing');
      await fail(second, id, 'generic_failure', 0);
      expect(await status(id)).to.equal('failed_send');
      await later(4 * BACKOFF_MS);
      expect(first.total + second.total, 'no third attempt').to.equal(2);
      await receiver.waitFor(3);
      const hooks = webhooksOf(id);
      expect(hooks.filter((sms) => sms.internal_status === 'failed_send')).to.have.length(1);
      expect(hooks.map((sms) => [sms.internal_status, sms.attempt])).to.deep.equal([
        ['processing', 1],
        ['processing', 2],
        ['failed_send', 2],
      ]);
    });

    it('then a device with max_send_attempts 3 gives three, the third after a doubled backoff', async () => {
      const only = await phone([0, 1, 2], { max_send_attempts: 3 });
      const id = await send({ device_id: only.id });
      await only.until(1);
      await fail(only, id, 'null_pdu', 0);
      await later(BACKOFF_MS);
      await only.until(2);
      await fail(only, id, 'null_pdu', 1);
      await later(2 * BACKOFF_MS - 1_000);
      expect(only.total, 'the second backoff is twice the first').to.equal(2);
      await later(1_000);
      await only.until(3);
      expect(only.tasks[2]).to.include({ sim: 2, attempt: 3 });
      await fail(only, id, 'null_pdu', 2);
      expect(await status(id)).to.equal('failed_send');
      expect(await attempts(id)).to.have.length(3);
    });

    it('then the account default applies where the device says null', async () => {
      const only = await phone([0, 1, 2], { max_send_attempts: null });
      const id = await send({ device_id: only.id });
      await only.until(1);
      await fail(only, id, 'no_service', 0);
      await later(BACKOFF_MS);
      await only.until(2);
      await fail(only, id, 'no_service', 1);
      expect(await status(id), 'two attempts by default').to.equal('failed_send');
    });
  });

  describe('when the administrator sets the account\'s default', () => {
    it('then a device without its own max_send_attempts gives that many', async () => {
      await fx.gateway.services.accounts.update(fx.tenant.accountId, { max_send_attempts: 1 }, fx.tenant.accountId);
      const only = await phone([0, 1]);
      const id = await send({ device_id: only.id });
      await only.until(1);
      await fail(only, id, 'no_service', 0);
      expect(await status(id), 'one attempt: the first failure is final').to.equal('failed_send');
    });
  });

  describe('while an SMS waits for its next attempt', () => {
    /** An SMS a phone took and failed with a retryable error, while another phone waits to try it. */
    async function waitingForRetry(): Promise<string> {
      const first = await phone([0]);
      const id = await send();
      await first.until(1);
      await phone([0]);
      await first.report(id, 'processing');
      await fail(first, id, 'no_service', 0);
      return id;
    }

    it('then the legacy API shows it taken (1), never back at 0, and it can still be cancelled', async () => {
      const id = await waitingForRetry();
      const row = await smsRow(fx, id);
      const legacy = await fx.tenant.root.post('/sms/get', { id: row!.object_id });
      expect(legacy.body).to.include({ status: 1, message_status: 'processing' });
      const cancelled = await fx.tenant.api.post(`/sms/${id}/cancel`, {});
      expect(cancelled.status).to.equal(200);
      expect(cancelled.body.status).to.equal('failed_send');
    });

    it('then a search finds it by the label it shows, processing, and not by waiting; the Extended list by pending too', async () => {
      const id = await waitingForRetry();
      const objectId = (await smsRow(fx, id))!.object_id;
      const legacyIds = async (search: string) => ((await fx.tenant.root.get(`/sms?limit=100&search=${search}`)).body.sms_list as Array<{ id: string }>).map((sms) => sms.id);
      const extendedIds = async (search: string) => ((await fx.tenant.api.get(`/sms?limit=100&search=${search}`)).body.data as Array<{ id: string }>).map((sms) => sms.id);
      expect(await legacyIds('processing')).to.include(objectId);
      expect(await legacyIds('PROCESS')).to.include(objectId);
      expect(await legacyIds('waiting')).to.not.include(objectId);
      expect(await extendedIds('processing')).to.include(id);
      expect(await extendedIds('pending')).to.include(id);
      expect(await extendedIds('waiting')).to.not.include(id);
      // One on its first attempt is still found by waiting, and not by processing.
      const waiting = await send();
      const waitingObjectId = (await smsRow(fx, waiting))!.object_id;
      expect(await legacyIds('waiting')).to.include(waitingObjectId);
      expect(await legacyIds('processing')).to.not.include(waitingObjectId);
    });
  });

  describe('when the only phone of a device group the routes keep an SMS for fails it with a retryable error', () => {
    afterEach(async () => {
      await fx.tenant.api.request('PUT', '/routes', { routes: [] });
    });

    it('then it ends failed_send, rather than waiting in the pool for a phone outside the group that may never take it', async () => {
      const inGroup = await phone([0], { group: 'g' });
      await phone([0]);
      const routed = await fx.tenant.api.request('PUT', '/routes', { routes: [{ target: 'group:g', skip_when_offline: false }] });
      expect(routed.status, JSON.stringify(routed.body)).to.equal(200);
      const id = await send();
      await inGroup.until(1);
      await inGroup.report(id, 'processing');
      await fail(inGroup, id, 'no_service', 0);
      expect(await status(id)).to.equal('failed_send');
      expect((await attempts(id)).map((attempt) => [attempt.device_id, attempt.result, attempt.retried])).to.deep.equal([[inGroup.id, 'failed', false]]);
    });
  });

  describe('when a phone reports a malformed error_code', () => {
    for (const bad of ['No Service', 42, '', 'x'.repeat(65)]) {
      it(`then ${JSON.stringify(bad).slice(0, 20)} is rejected and counted, and the SMS does not move`, async () => {
        const first = await phone([0]);
        const id = await send();
        await first.until(1);
        await first.report(id, 'processing');
        const counted = fx.gateway.services.metrics.value(REJECTED_METRIC, { reason: 'invalid_payload' });
        await first.reportWith(id, 'failed_send', { error_code: bad });
        expect(fx.gateway.services.metrics.value(REJECTED_METRIC, { reason: 'invalid_payload' })).to.equal(counted + 1);
        const row = await smsRow(fx, id);
        expect(row).to.include({ status: 'processing', attempt: 1 });
      });
    }
  });
});
