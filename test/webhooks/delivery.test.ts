// Webhook delivery against a real local receiver: routing by callback_id, Standard Webhooks
// signatures (checked with the standardwebhooks package), retries, 410, and what payloads carry.
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { useGateway } from '../support/use-gateway.ts';
import { nextEvent } from '../support/devices.ts';
import { Receiver } from '../support/receiver.ts';
import { loadConfig } from '../../src/config.ts';

const PHONE = '+79161234567';

describe('webhooks: delivery', () => {
  const fx = useGateway({
    config: () => ({ webhooks: { ...loadConfig({}).webhooks, allowedHosts: ['127.0.0.1'], retryBaseMs: 20, disableAfterMs: 60_000 } }),
  });
  let receiver: Receiver;
  let phone: SimulatedDevice | undefined;

  beforeEach(async () => {
    receiver = await fx.receiver();
  });
  afterEach(() => {
    phone = undefined;
  });

  async function createWebhook(events: string[] = ['sms.status_changed'], url = receiver.url) {
    const reply = await fx.tenant.api.post('/webhooks', { url, events });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body as { webhook: { id: string }; secret: string };
  }

  describe('when an SMS travels to delivered', () => {
    it('then every status change reaches the webhook, signed so that standardwebhooks verifies it', async () => {
      const { secret } = await createWebhook();
      phone = await fx.connectDevice();
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'hook me' });
      const received = await receiver.waitFor(3);
      const verifier = new Webhook(secret);
      const statuses = received.map((request) => {
        const event = verifier.verify(request.body, request.headers as Record<string, string>) as any;
        expect(event.type).to.equal('sms.status_changed');
        expect(event.account_id).to.equal(fx.tenant.accountId);
        expect(event.data.sms).to.include({ id: created.body.id, phone: PHONE, message: 'hook me', device_id: phone!.id });
        return event.data.sms.internal_status;
      });
      expect(statuses).to.deep.equal(['processing', 'sent', 'delivered']);
      const last = received[2]!.json.data.sms;
      expect(last).to.include({ status: 'delivered', legacy_status: 4, legacy_status_label: 'delivered', previous_status: 'sent' });
      expect(new Set(received.map((request) => request.headers['webhook-id'])).size).to.equal(3);
    });

    it('then a wrong secret does not verify', async () => {
      await createWebhook();
      phone = await fx.connectDevice();
      await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x' });
      const [first] = await receiver.waitFor(1);
      const stranger = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
      expect(() => stranger.verify(first!.body, first!.headers as Record<string, string>)).to.throw();
    });
  });

  describe('when an SMS names a webhook with callback_id', () => {
    it('then only that webhook gets its events; SMS without one go to every webhook with the event', async () => {
      const other = new Receiver();
      await other.start();
      try {
        const routed = await createWebhook(['sms.status_changed']);
        await createWebhook(['sms.status_changed'], other.url);
        phone = await fx.connectDevice();
        const device = await fx.gateway.services.devices.get(fx.tenant.accountId, phone.id);

        const withCallback = await fx.tenant.root.post('/sms/send', { message: 'routed', phone_number: PHONE, callback_id: routed.webhook.id, device_id: device.object_id });
        expect(withCallback.status, JSON.stringify(withCallback.body)).to.equal(200);
        await receiver.waitFor(3, (r) => r.json?.data?.sms?.object_id === withCallback.body.id);

        const broadcast = await fx.tenant.root.post('/sms/send', { message: 'to all', phone_number: PHONE, device_id: device.object_id });
        await receiver.waitFor(3, (r) => r.json?.data?.sms?.object_id === broadcast.body.id);
        await other.waitFor(3, (r) => r.json?.data?.sms?.object_id === broadcast.body.id);
        expect(other.received.filter((r) => r.json?.data?.sms?.object_id === withCallback.body.id)).to.have.length(0);
      } finally {
        await other.stop();
      }
    });

    it('then the named webhook gets them even when its list of events does not hold sms.status_changed', async () => {
      const named = await createWebhook(['device.offline']);
      phone = await fx.connectDevice();
      const device = await fx.gateway.services.devices.get(fx.tenant.accountId, phone.id);
      const sent = await fx.tenant.root.post('/sms/send', { message: 'named', phone_number: PHONE, callback_id: named.webhook.id, device_id: device.object_id });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
      const events = await receiver.waitFor(3, (r) => r.json?.data?.sms?.object_id === sent.body.id);
      expect(events.map((r) => r.json.data.sms.internal_status)).to.deep.equal(['processing', 'sent', 'delivered']);
    });
  });

  describe('when the receiver fails the first attempts', () => {
    it('then the event arrives after retries, and the delivery log shows the attempts', async () => {
      const { webhook } = await createWebhook(['sms.status_changed']);
      receiver.respond = (_request, index) => (index < 3 ? 503 : 200);
      phone = await fx.connectDevice();
      // The receiver answers before the gateway writes down the outcome: await the writing.
      let delivered = 0;
      const allRecorded = nextEvent(fx.gateway.services.webhookSender, 'recorded', (results) => {
        delivered += results.filter((result: { webhookId: string; status: string }) => result.webhookId === webhook.id && result.status === 'delivered').length;
        return delivered === 3;
      });
      await fx.tenant.api.post('/sms', { phone: PHONE, message: 'retry' });
      await allRecorded;
      const log = await fx.tenant.api.get(`/webhooks/${webhook.id}/deliveries?limit=10`);
      expect(log.status).to.equal(200);
      const retried = log.body.data.find((delivery: { attempts: number }) => delivery.attempts > 1);
      expect(retried).to.include({ status: 'delivered', last_status_code: 200 });
      expect(retried.attempts).to.be.greaterThan(1);
    });
  });

  describe('when the receiver answers 410 Gone', () => {
    it('then the webhook is disabled and says why', async () => {
      const { webhook } = await createWebhook(['sms.status_changed']);
      receiver.respond = () => 410;
      phone = await fx.connectDevice();
      const recorded = nextEvent(fx.gateway.services.webhookSender, 'recorded', (results) => results.some((result: { webhookId: string }) => result.webhookId === webhook.id));
      await fx.tenant.api.post('/sms', { phone: PHONE, message: 'gone' });
      await recorded;
      const read = await fx.tenant.api.get(`/webhooks/${webhook.id}`);
      expect(read.body.disabled_reason).to.contain('410');
    });
  });

  describe('when a no_store SMS changes status', () => {
    it('then its events carry no message text', async () => {
      await createWebhook(['sms.status_changed']);
      phone = await fx.connectDevice();
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'one-time code 424242', no_store: true });
      expect(created.status).to.equal(201);
      const received = await receiver.waitFor(3);
      for (const request of received) {
        expect(request.body).not.to.contain('424242');
        expect(request.json.data.sms).to.include({ id: created.body.id, no_store: true });
      }
    });
  });
});
