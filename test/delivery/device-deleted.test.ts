// A deleted device can never report again (its credentials die with it), so every SMS its phone
// had taken ends when it is deleted, and a client polling for a final status, or waiting for a
// webhook, gets one: acknowledged and not reported sent -> failed_send, sent -> failed_delivery
// (its delivery can never be confirmed), both with reason device_deleted and a history entry of
// the gateway's; delivered and other final SMS stay as they are. The SMS keeps naming the device
// that had it (legacy device_id too), though the device itself now answers 404.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { nextTask, takeTasks, topic, type RawClient } from '../support/mqtt.ts';
import { legacyGet } from '../support/legacy.ts';
import { createWebhook, dropWebhooks, webhookConfig } from '../support/webhooks.ts';

const PHONE = '+79161234567';

describe('delivery: a device deleted while its phone holds SMS', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });

  afterEach(async () => dropWebhooks(fx.gateway, [fx.tenant.accountId]));

  /** A phone that takes tasks and reports only what the test says. */
  async function phone(): Promise<{ id: string; objectId: string; raw: RawClient }> {
    const { device, token } = await fx.registerDevice('doomed');
    const raw = await fx.clients.device(device.id, token);
    await takeTasks(raw, device.id);
    return { id: device.id, objectId: device.object_id, raw };
  }

  /** Sends an SMS, waits until the phone has it, and has the phone report `statuses` in order. */
  async function taken(holder: { id: string; raw: RawClient }, message: string, statuses: string[], named = true) {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message, ...(named ? { device_id: holder.id } : {}) });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await nextTask(holder.raw, holder.id, created.body.id);
    for (const status of statuses) await holder.raw.publish(topic(holder.id, 'status'), JSON.stringify({ sms_id: created.body.id, status }));
    return created.body as { id: string };
  }

  async function sms(id: string) {
    const reply = await fx.tenant.api.get(`/sms/${id}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body;
  }

  const steps = (body: { history: { internal_status: string }[] }) => body.history.map((entry) => entry.internal_status);

  describe('when the device is deleted after its phone acknowledged one SMS and sent another', () => {
    it('then the acknowledged one ends failed_send and the sent one failed_delivery, both with reason device_deleted; the delivered one is untouched', async () => {
      const doomed = await phone();
      const acknowledged = await taken(doomed, 'on the air', ['processing']);
      const pooled = await taken(doomed, 'taken from the pool', ['processing'], false);
      const sent = await taken(doomed, 'sent, no report yet', ['processing', 'sent']);
      const delivered = await taken(doomed, 'delivered', ['processing', 'sent', 'delivered']);

      expect((await fx.tenant.api.delete(`/devices/${doomed.id}`)).status).to.equal(204);

      for (const id of [acknowledged.id, pooled.id]) {
        const ended = await sms(id);
        expect(ended, 'acknowledged').to.include({ status: 'failed_send', reason: 'device_deleted', device_id: doomed.id });
        expect(steps(ended)).to.deep.equal(['pending', 'processing', 'failed_send']);
        expect(ended.history.at(-1)).to.include({ source: 'system', reason: 'device_deleted' });
      }
      const unconfirmed = await sms(sent.id);
      expect(unconfirmed).to.include({ status: 'failed_delivery', reason: 'device_deleted', device_id: doomed.id });
      // The history keeps that it was sent, and when: only its delivery is unknown.
      expect(steps(unconfirmed)).to.deep.equal(['pending', 'processing', 'sent', 'failed_delivery']);
      expect(unconfirmed.history.at(-1)).to.include({ source: 'system', reason: 'device_deleted' });
      const kept = await sms(delivered.id);
      expect(kept).to.include({ status: 'delivered', reason: null });
      expect(steps(kept)).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
    });

    it('then the legacy family shows them final (3 and 5), still naming the device, which itself answers 404', async () => {
      const doomed = await phone();
      const acknowledged = await taken(doomed, 'legacy on the air', ['processing']);
      const sent = await taken(doomed, 'legacy sent', ['processing', 'sent']);
      // The legacy family takes the Extended API's ids too.
      expect(await legacyGet(fx.tenant, acknowledged.id)).to.include({ status: 1 });

      const deleted = await fx.tenant.root.post('/devices/del', { device_id: doomed.objectId });
      expect(deleted.status, JSON.stringify(deleted.body)).to.equal(204);

      expect(await legacyGet(fx.tenant, acknowledged.id)).to.include({ status: 3, message_status: 'failed', device_id: doomed.objectId });
      expect(await legacyGet(fx.tenant, sent.id)).to.include({ status: 5, message_status: 'undelivered', device_id: doomed.objectId });
      expect((await fx.tenant.root.post('/devices/get/info', { device_id: doomed.objectId })).status).to.equal(404);
    });

    it('then a webhook hears both final statuses, with reason device_deleted', async () => {
      const receiver = await fx.receiver();
      await createWebhook(fx.tenant, receiver.url, ['sms.status_changed']);
      const doomed = await phone();
      const acknowledged = await taken(doomed, 'hooked on the air', ['processing']);
      const sent = await taken(doomed, 'hooked sent', ['processing', 'sent']);

      expect((await fx.tenant.api.delete(`/devices/${doomed.id}`)).status).to.equal(204);
      const byDeletion = (request: { json: any }) => request.json?.data?.sms?.reason === 'device_deleted';
      const events = (await receiver.waitFor(2, byDeletion)).map((request) => request.json.data.sms);
      const of = (id: string) => events.find((event) => event.id === id);
      expect(of(acknowledged.id)).to.include({ previous_status: 'processing', internal_status: 'failed_send', status: 'failed_send', legacy_status: 3 });
      expect(of(sent.id)).to.include({ previous_status: 'sent', internal_status: 'failed_delivery', status: 'failed_delivery', legacy_status: 5 });
    });
  });
});
