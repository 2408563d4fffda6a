// The suppression list holds when a phone is about to be handed an SMS, not only when the SMS is
// created: an SMS that waits (scheduled, queued with no phone that may send, or going round again
// after a failed send) while its recipient sends STOP ends failed_send with reason
// recipient_opted_out, its webhook says so, and no phone is ever handed it; one handed to a phone
// that went away before acknowledging it is not handed again, and the phone is told to drop it. The other SMS of the
// same queue go out, and so does one sent past the list (a key with sms:send_transactional).
// Real broker, real MQTT phones (TaskPhone); time moved by the test (ManualClock).
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway, type GatewayFixture } from '../support/use-gateway.ts';
import { jpeg, mmsConfig, uploadMedia } from '../mms/mms-fixture.ts';
import { TaskPhone, UNPACED } from '../support/task-phone.ts';
import { eventually } from '../support/eventually.ts';
import type { ApiClient } from '../support/tenant.ts';
import type { Receiver } from '../support/receiver.ts';
import { createWebhook, dropWebhooks, webhookConfig } from '../support/webhooks.ts';
import { ordinaryClients, receive } from './support.ts';

const OPTING_OUT = '+79161234567';
const STAYING = '+79161234568';
const BACKOFF_MS = 30_000;

describe('opt-out: held when a phone is about to be handed the SMS', () => {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const fx: GatewayFixture = useGateway({ clock, config: mmsConfig(() => fx, {}, { webhooks: webhookConfig(), sendRetryBackoffMs: BACKOFF_MS }) });
  let receiver: Receiver;
  let api: ApiClient;

  beforeEach(async () => {
    receiver = await fx.receiver();
    await createWebhook(fx.tenant, receiver.url, ['sms.status_changed']);
    ({ api } = await ordinaryClients(fx));
  });
  afterEach(async () => dropWebhooks(fx.gateway, [fx.tenant.accountId]));

  /** A phone that forwards what it receives and takes tasks, pacing lifted. */
  function phone(settings: Record<string, unknown> = {}): Promise<TaskPhone> {
    return fx.taskPhone({ ...UNPACED, forward_incoming_sms: true, ...settings });
  }

  async function send(client: ApiClient, body: Record<string, unknown>): Promise<string> {
    const created = await client.post('/sms', { message: 'hello', ...body });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id;
  }

  /** Moves the clock, has the phones say they are there, and lets the sweep hand out what is due. */
  async function later(ms: number, phones: TaskPhone[]): Promise<void> {
    clock.advance(ms);
    for (const each of phones) await each.heartbeat();
    await fx.gateway.services.dispatcher.sweep();
    for (const each of phones) await each.settle();
  }

  /** The SMS ended failed_send, reason recipient_opted_out, by the gateway; its webhook said so. */
  async function expectHeld(id: string): Promise<void> {
    const read = await fx.tenant.api.get(`/sms/${id}`);
    expect(read.body, id).to.include({ status: 'failed_send', reason: 'recipient_opted_out' });
    expect(read.body.history.at(-1)).to.include({ internal_status: 'failed_send', source: 'system' });
    const [hook] = await receiver.waitFor(1, (request) => request.json?.data?.sms?.id === id && request.json.data.sms.internal_status === 'failed_send');
    expect(hook!.json.data.sms).to.include({ status: 'failed_send', reason: 'recipient_opted_out', phone: OPTING_OUT });
  }

  const handed = (...phones: TaskPhone[]) => phones.flatMap((each) => [...each.tasks, ...each.done]).map((task) => task.sms_id);

  describe('when an SMS is scheduled and its recipient sends STOP before its time', () => {
    it('then at its time it ends recipient_opted_out, named for a phone or not, while the others of that time go out, a transactional one too', async () => {
      const only = await phone();
      const at = new Date(clock.now() + 10_000).toISOString();
      const pooled = await send(api, { phone: OPTING_OUT, send_at: at });
      const named = await send(api, { phone: OPTING_OUT, send_at: at, device_id: only.id });
      const staying = await send(api, { phone: STAYING, send_at: at });
      const code = await send(fx.tenant.api, { phone: OPTING_OUT, message: 'your code is 1234', send_at: at });

      await receive(only, OPTING_OUT, 'STOP');
      await later(10_000, [only]);
      await only.until(2);

      expect(handed(only)).to.have.members([staying, code]);
      await expectHeld(pooled);
      await expectHeld(named);
    });
  });

  describe('when a group MMS is scheduled and one of its recipients sends STOP before its time', () => {
    it('then at its time the MMS ends recipient_opted_out: it is one message to all of them', async () => {
      const only = await phone();
      const media = await uploadMedia(fx, fx.tenant.key!, jpeg(2_000), 'image/jpeg');
      expect(media.status, JSON.stringify(media.body)).to.equal(201);
      const at = new Date(clock.now() + 10_000).toISOString();
      const created = await api.post('/mms', { phones: [STAYING, OPTING_OUT], media_ids: [media.body.id], send_at: at });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const staying = await send(api, { phone: STAYING, send_at: at });

      await receive(only, OPTING_OUT, 'STOP');
      await later(10_000, [only]);
      await only.until(1);

      expect(handed(only)).to.deep.equal([staying]);
      const read = await fx.tenant.api.get(`/sms/${created.body.id}`);
      expect(read.body).to.include({ status: 'failed_send', reason: 'recipient_opted_out', kind: 'mms' });
    });
  });

  describe('when a send fails, and its recipient sends STOP before the retry', () => {
    it('then the retry ends recipient_opted_out instead of going to another phone', async () => {
      const first = await phone();
      const second = await phone();
      const id = await send(api, { phone: OPTING_OUT });
      await Promise.race([first.until(1), second.until(1)]);
      const [holder, other] = first.total === 1 ? [first, second] : [second, first];
      await holder.report(id, 'processing');
      await holder.reportWith(id, 'failed_send', { error: 'radio says no_service', error_code: 'no_service' });
      expect((await fx.tenant.api.get(`/sms/${id}`)).body.status).to.equal('pending');

      await receive(holder, OPTING_OUT, 'STOP');
      await later(BACKOFF_MS, [first, second]);

      await expectHeld(id);
      expect(other.total).to.equal(0);
      expect(holder.total).to.equal(1);
    });
  });

  describe('when an SMS was handed to a phone that went away before acknowledging it, and its recipient sends STOP meanwhile', () => {
    it('then the phone, back, is told to drop it instead of being handed it again, and it ends recipient_opted_out', async () => {
      const away = await phone();
      const listener = await phone({ can_send_sms: false });
      const id = await send(api, { phone: OPTING_OUT, device_id: away.id });
      await away.until(1);
      await away.stop();

      await receive(listener, OPTING_OUT, 'STOP');
      const back = fx.track(await TaskPhone.reconnect(fx.gateway, away));
      expect(await eventually('the revoke', () => back.revoked.get(id))).to.equal('recipient_opted_out');
      await back.settle();
      expect(back.total).to.equal(0);
      await expectHeld(id);
    });
  });

  describe('when a bulk send waits for a phone that may send, and one of its recipients sends STOP meanwhile', () => {
    it('then that recipient\'s SMS ends recipient_opted_out and the others go out once a phone may send', async () => {
      const only = await phone({ can_send_sms: false });
      const phones = ['+79161234561', OPTING_OUT, '+79161234563', STAYING];
      const created = await api.post('/sms/bulk', { messages: phones.map((to, index) => ({ phone: to, message: `bulk ${index}` })) });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const ids: string[] = created.body.data.map((sms: { id: string }) => sms.id);

      await receive(only, OPTING_OUT, 'Stop!');
      expect((await fx.tenant.api.patch(`/devices/${only.id}/settings`, { can_send_sms: true })).status).to.equal(200);
      await only.until(3);
      await only.settle();

      expect(handed(only)).to.have.members([ids[0], ids[2], ids[3]]);
      await expectHeld(ids[1]!);
    });
  });
});
