// Checking a receiver before real events depend on it: POST /webhooks/{id}/test sends a signed
// webhook.test event through the normal delivery path and answers 202 with its delivery; the
// delivery log shows the payload sent and the receiver's answer (status code and the start of its
// body, bounded); a loopback URL refused by the SSRF guard says which setting opens it.
import { expect } from 'chai';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import { ANSWER_EXCERPT_BYTES } from '../../src/modules/webhooks/outbound/answer-excerpt.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { Receiver } from '../support/receiver.ts';
import { expectError, UNKNOWN_ID } from '../support/expectations.ts';
import { createWebhook, deliveryLog, dropWebhooks, expectDelivery, expectEnvelope, recorded, verified, webhookConfig } from '../support/webhooks.ts';

describe('webhooks: test events and what the log shows', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = await fx.receiver();
  });
  afterEach(() => dropWebhooks(fx.gateway, [fx.tenant.accountId]));

  it('sends a signed webhook.test to a webhook subscribed to other events, answers 202 with the delivery, and logs payload and answer', async () => {
    const { webhook, secret } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
    receiver.respond = () => 200;
    receiver.answerBody = () => '{"received":true}';
    const done = recorded(fx.gateway, webhook.id);
    const reply = await fx.tenant.api.post(`/webhooks/${webhook.id}/test`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(202);
    expectDelivery(reply.body);
    expect(reply.body).to.include({ event_type: 'webhook.test', status: 'pending' });

    const [request] = await receiver.waitFor(1);
    expect(request!.headers['webhook-id']).to.equal(reply.body.id);
    const event = verified(secret, request!);
    expectEnvelope(event, 'webhook.test', fx.tenant.accountId);
    expect(event.data.webhook).to.deep.equal({ id: webhook.id, url: webhook.url });
    await done;

    const [logged] = await deliveryLog(fx.tenant, webhook.id);
    expectDelivery(logged);
    expect(logged).to.include({ id: reply.body.id, status: 'delivered', last_status_code: 200, last_response_body: '{"received":true}' });
    expect(logged.payload).to.deep.equal(JSON.parse(request!.body));
  });

  it("keeps the first 2 KiB of a long answer, and a failed attempt's answer too", async () => {
    const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
    receiver.respond = () => 500;
    receiver.answerBody = () => `<html>${'é'.repeat(5000)}</html>`;
    const done = recorded(fx.gateway, webhook.id);
    expect((await fx.tenant.api.post(`/webhooks/${webhook.id}/test`)).status).to.equal(202);
    await done;
    const [logged] = await deliveryLog(fx.tenant, webhook.id);
    expect(logged.last_status_code).to.equal(500);
    expect(logged.last_error).to.contain('500');
    expect(logged.last_response_body.startsWith('<html>éé')).to.equal(true);
    expect(Buffer.byteLength(logged.last_response_body)).to.be.within(ANSWER_EXCERPT_BYTES - 4, ANSWER_EXCERPT_BYTES + 2);
  });

  it('is refused: 403 without webhooks:write, 404 for an unknown webhook, 409 for a disabled one (nothing sent)', async () => {
    const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
    const reader = await fx.keyWith(PERMISSIONS.filter((permission) => permission !== 'webhooks:write'));
    expectError(await reader.post(`/webhooks/${webhook.id}/test`), 403, 'forbidden');
    expectError(await fx.tenant.api.post(`/webhooks/${UNKNOWN_ID}/test`), 404, 'webhook_not_found');
    expectError(await fx.tenant.api.post('/webhooks/not-an-id/test'), 400, 'invalid_id');
    expect((await fx.tenant.api.patch(`/webhooks/${webhook.id}`, { enabled: false })).status).to.equal(200);
    const disabled = await fx.tenant.api.post(`/webhooks/${webhook.id}/test`);
    expectError(disabled, 409, 'conflict');
    expect(disabled.body.error.message).to.match(/enable it/);
    expect(await deliveryLog(fx.tenant, webhook.id)).to.deep.equal([]);
    expect(receiver.received).to.have.length(0);
  });

  it("shows an SMS event's payload only to a caller who may read SMS", async () => {
    const { webhook } = await createWebhook(fx.tenant, receiver.url, ['sms.status_changed']);
    const phone = await fx.connectDevice({ delays: { processing: 0, sent: 0, delivered: 0 } });
    expect(phone).to.not.equal(undefined);
    const done = recorded(fx.gateway, webhook.id);
    expect((await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'private text' })).status).to.equal(201);
    await done;
    const [asOwner] = await deliveryLog(fx.tenant, webhook.id);
    expect(JSON.stringify(asOwner.payload)).to.contain('private text');
    const webhooksOnly = await fx.keyWith(['webhooks:read']);
    const reply = await webhooksOnly.get(`/webhooks/${webhook.id}/deliveries`);
    expect(reply.status).to.equal(200);
    expect(reply.body.data.length).to.be.greaterThan(0);
    for (const delivery of reply.body.data) expect(delivery.payload).to.equal(null);
  });
});

describe('webhooks: a refused local URL says how to allow it', () => {
  const fx = useGateway();

  it('a loopback or private URL is 400 invalid_webhook_url naming WEBHOOK_ALLOWED_HOSTS and the host to add', async () => {
    for (const url of ['http://127.0.0.1:9000/hook', 'http://192.168.1.20/hook', 'http://localhost:8080/hook']) {
      const reply = await fx.tenant.api.post('/webhooks', { url, events: ['device.online'] });
      expectError(reply, 400, 'invalid_webhook_url');
      expect(reply.body.error.message, url).to.contain('WEBHOOK_ALLOWED_HOSTS');
      expect(reply.body.error.message, url).to.contain(new URL(url).hostname);
    }
  });

  it('a URL that is not http is refused without that hint (no setting opens it)', async () => {
    const reply = await fx.tenant.api.post('/webhooks', { url: 'ftp://example.com/hook', events: ['device.online'] });
    expectError(reply, 400, 'invalid_webhook_url');
    expect(reply.body.error.message).to.not.contain('WEBHOOK_ALLOWED_HOSTS');
  });
});
