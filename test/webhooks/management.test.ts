// The webhook management API : create (the signing secret is shown once), list (paged, newest
// first, never another account's), read, change, delete, rotate the secret (the old one keeps
// signing alongside the new one for a while), the delivery log, and a manual retry of a
// delivery. Permissions webhooks:read and webhooks:write. Deliveries go to a real local
// receiver and are verified with the standardwebhooks package.
import { expect } from 'chai';
import { PERMISSIONS, type Permission } from '../../src/modules/api-keys/permissions.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { useGateway } from '../support/use-gateway.ts';
import { ApiClient, type Tenant } from '../support/tenant.ts';
import { nextEvent } from '../support/devices.ts';
import { Receiver } from '../support/receiver.ts';
import { detailFields, expectError, MALFORMED_IDS, UNKNOWN_ID } from '../support/expectations.ts';
import {
  createWebhook,
  deliveryLog,
  dropWebhooks,
  expectDelivery,
  expectWebhook,
  readWebhook,
  recorded,
  signaturesOf,
  verified,
  verifies,
  webhookConfig,
} from '../support/webhooks.ts';
import { deliveryRowsOf } from '../support/test-data.ts';

const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const DAY_MS = 24 * 60 * 60 * 1000;
const allBut = (permission: Permission) => PERMISSIONS.filter((p) => p !== permission);

/** No member named like a secret anywhere in the body, and none of these secrets in its text. */
function expectNoSecret(body: unknown, secrets: string[]): void {
  const text = JSON.stringify(body);
  for (const secret of secrets) {
    expect(text).not.to.contain(secret);
    expect(text).not.to.contain(secret.replace(/^whsec_/, ''));
  }
  expect(text).not.to.match(/"[^"]*secret[^"]*":/i);
}

describe('webhooks: management API', () => {
  // A webhook failing for 300 ms is disabled, so a disable happens within a test.
  const fx = useGateway({ config: { webhooks: webhookConfig({ disableAfterMs: 300 }) } });
  let receiver: Receiver;
  /** The devices the running test connected, in order (the fixture stops them). */
  let devices: SimulatedDevice[] = [];
  let accounts: string[] = [];

  beforeEach(async () => {
    accounts = [fx.tenant.accountId];
    receiver = await fx.receiver();
  });
  afterEach(async () => {
    devices = [];
    await dropWebhooks(fx.gateway, accounts);
  });

  async function anotherTenant(): Promise<Tenant> {
    const other = await fx.newTenant();
    accounts.push(other.accountId);
    return other;
  }

  /** Connects a device of the tenant: its device.online event goes to the webhooks that want it. */
  async function deviceComesOnline(owner: Tenant = fx.tenant): Promise<SimulatedDevice> {
    const device = await fx.connectDevice({}, owner);
    devices.push(device);
    return device;
  }

  describe('POST /webhooks', () => {
    it('when url and events are valid, then it answers 201 with the webhook and a whsec_ secret, shown this once', async () => {
      const reply = await fx.tenant.api.post('/webhooks', { url: receiver.url, events: ['sms.status_changed', 'device.online'], description: 'orders' });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(Object.keys(reply.body)).to.have.members(['webhook', 'secret']);
      const { webhook, secret } = reply.body;
      expectWebhook(webhook);
      expect(webhook).to.include({ url: receiver.url, description: 'orders', enabled: true, disabled_reason: null, consecutive_failures: 0 });
      expect(webhook.events).to.have.members(['sms.status_changed', 'device.online']);
      expect(secret).to.match(SECRET);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 'secret bytes').to.be.at.least(24);

      const read = await fx.tenant.api.get(`/webhooks/${webhook.id}`);
      expect(read.status).to.equal(200);
      expect(read.body).to.deep.equal(webhook);
      expectNoSecret(read.body, [secret]);
      const list = await fx.tenant.api.get('/webhooks');
      expect(list.status).to.equal(200);
      expect(list.body.data).to.deep.equal([webhook]);
      expectNoSecret(list.body, [secret]);
    });

    it('when description is left out, then it is empty, and an event named twice is kept once', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online', 'device.online']);
      expect(webhook.description).to.equal('');
      expect(webhook.events).to.deep.equal(['device.online']);
    });

    it('when two webhooks are created, then each gets its own secret', async () => {
      const first = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const second = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      expect(first.webhook.id).not.to.equal(second.webhook.id);
      expect(first.secret).not.to.equal(second.secret);
    });

    const invalid: [label: string, body: unknown, field?: string][] = [
      ['an unknown event', { url: 'http://127.0.0.1:9/x', events: ['sms.unknown'] }, 'events.0'],
      ['a known and an unknown event', { url: 'http://127.0.0.1:9/x', events: ['device.online', 'device.exploded'] }, 'events.1'],
      ['an empty events list', { url: 'http://127.0.0.1:9/x', events: [] }, 'events'],
      ['no events', { url: 'http://127.0.0.1:9/x' }, 'events'],
      ['no url', { events: ['device.online'] }, 'url'],
      ['an empty url', { url: '', events: ['device.online'] }, 'url'],
      ['an unknown field', { url: 'http://127.0.0.1:9/x', events: ['device.online'], secret: 'whsec_AAAA' }, 'secret'],
      ['enabled (not settable at creation)', { url: 'http://127.0.0.1:9/x', events: ['device.online'], enabled: false }, 'enabled'],
      ['a url that is a number', { url: 42, events: ['device.online'] }, 'url'],
      ['events as a string', { url: 'http://127.0.0.1:9/x', events: 'device.online' }, 'events'],
      ['an event that is a number', { url: 'http://127.0.0.1:9/x', events: [1] }, 'events.0'],
      ['a description that is a number', { url: 'http://127.0.0.1:9/x', events: ['device.online'], description: 7 }, 'description'],
      ['a description over 500 characters', { url: 'http://127.0.0.1:9/x', events: ['device.online'], description: 'd'.repeat(501) }, 'description'],
      ['a url over 2048 characters', { url: `http://127.0.0.1:9/${'x'.repeat(2048)}`, events: ['device.online'] }, 'url'],
      ['an array body', [{ url: 'http://127.0.0.1:9/x', events: ['device.online'] }]],
    ];
    for (const [label, body, field] of invalid) {
      it(`when the body has ${label}, then it answers 400 validation_failed and creates nothing`, async () => {
        const reply = await fx.tenant.api.post('/webhooks', body);
        expectError(reply, 400, 'validation_failed');
        if (field) expect(detailFields(reply)).to.include(field);
        expect((await fx.tenant.api.get('/webhooks')).body.data).to.deep.equal([]);
      });
    }

    it('when the url is not a URL, then it answers 400 invalid_webhook_url naming the url', async () => {
      const reply = await fx.tenant.api.post('/webhooks', { url: 'not a url', events: ['device.online'] });
      expectError(reply, 400, 'invalid_webhook_url');
      expect(detailFields(reply)).to.deep.equal(['url']);
      expect(reply.body.error.message).to.contain('not a valid URL');
    });

    it('when the body is not JSON, then it answers 400 invalid_json', async () => {
      expectError(await fx.tenant.api.post('/webhooks', '{"url": '), 400, 'invalid_json');
    });

    it('when the key lacks webhooks:write, then it answers 403 forbidden and creates nothing', async () => {
      const key = await fx.keyWith(allBut('webhooks:write'));
      expectError(await key.post('/webhooks', { url: receiver.url, events: ['device.online'] }), 403, 'forbidden');
      const readOnly = await fx.keyWith(['webhooks:read']);
      expectError(await readOnly.post('/webhooks', { url: receiver.url, events: ['device.online'] }), 403, 'forbidden');
      expect((await fx.tenant.api.get('/webhooks')).body.data).to.deep.equal([]);
    });

    it('when there is no API key, then it answers 401', async () => {
      const anonymous = new ApiClient(fx.tenant.api.baseUrl, undefined);
      expectError(await anonymous.post('/webhooks', { url: receiver.url, events: ['device.online'] }), 401, 'unauthorized');
    });
  });

  describe('GET /webhooks', () => {
    it('when there are more webhooks than the limit, then pages follow each other newest first', async () => {
      const created: string[] = [];
      for (const description of ['first', 'second', 'third']) {
        created.push((await createWebhook(fx.tenant, receiver.url, ['device.online'], description)).webhook.id);
      }
      const first = await fx.tenant.api.get('/webhooks?limit=2');
      expect(first.status).to.equal(200);
      expect(Object.keys(first.body)).to.have.members(['data', 'next_cursor']);
      expect(first.body.data.map((webhook: { id: string }) => webhook.id)).to.deep.equal([created[2], created[1]]);
      first.body.data.forEach(expectWebhook);
      expect(first.body.next_cursor).to.be.a('string').and.not.empty;
      const second = await fx.tenant.api.get(`/webhooks?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
      expect(second.status).to.equal(200);
      expect(second.body.data.map((webhook: { id: string }) => webhook.id)).to.deep.equal([created[0]]);
      expect(second.body.next_cursor).to.equal(null);
    });

    for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=not-a-cursor']) {
      it(`when the query is ${query}, then it answers 400 validation_failed`, async () => {
        expectError(await fx.tenant.api.get(`/webhooks?${query}`), 400, 'validation_failed');
      });
    }

    it('when the query carries a parameter the list does not know, then it is ignored, as on every GET', async () => {
      const plain = await fx.tenant.api.get('/webhooks');
      const withUnknown = await fx.tenant.api.get('/webhooks?colour=blue');
      expect(withUnknown.status).to.equal(200);
      expect(withUnknown.body).to.deep.equal(plain.body);
    });

    it("when another account has a webhook, then it is never listed and every operation on it answers 404", async () => {
      const other = await anotherTenant();
      const theirs = await createWebhook(other, receiver.url, ['device.online']);
      const mine = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const id = theirs.webhook.id;

      const list = await fx.tenant.api.get('/webhooks');
      expect(list.body.data.map((webhook: { id: string }) => webhook.id)).to.deep.equal([mine.webhook.id]);
      expectError(await fx.tenant.api.get(`/webhooks/${id}`), 404, 'webhook_not_found');
      expectError(await fx.tenant.api.patch(`/webhooks/${id}`, { enabled: false }), 404, 'webhook_not_found');
      expectError(await fx.tenant.api.post(`/webhooks/${id}/rotate-secret`), 404, 'webhook_not_found');
      expectError(await fx.tenant.api.get(`/webhooks/${id}/deliveries`), 404, 'webhook_not_found');
      expectError(await fx.tenant.api.post(`/webhooks/${id}/deliveries/${UNKNOWN_ID}/retry`), 404, 'webhook_not_found');
      expectError(await fx.tenant.api.delete(`/webhooks/${id}`), 404, 'webhook_not_found');

      // Untouched for its owner.
      expect(await readWebhook(other, id)).to.deep.equal(theirs.webhook);
      expect((await other.api.get('/webhooks')).body.data.map((webhook: { id: string }) => webhook.id)).to.deep.equal([id]);
    });

    it('when the key lacks webhooks:read, then listing, reading and the delivery log answer 403', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const key = await fx.keyWith(allBut('webhooks:read'));
      expectError(await key.get('/webhooks'), 403, 'forbidden');
      expectError(await key.get(`/webhooks/${webhook.id}`), 403, 'forbidden');
      expectError(await key.get(`/webhooks/${webhook.id}/deliveries`), 403, 'forbidden');
      const readOnly = await fx.keyWith(['webhooks:read']);
      expect((await readOnly.get(`/webhooks/${webhook.id}`)).status).to.equal(200);
    });

    it('when the id is unknown, then it answers 404 webhook_not_found', async () => {
      expectError(await fx.tenant.api.get(`/webhooks/${UNKNOWN_ID}`), 404, 'webhook_not_found');
    });

    for (const id of MALFORMED_IDS) {
      it(`when the id is "${id}", then every webhook path answers 400 invalid_id`, async () => {
        const path = `/webhooks/${encodeURIComponent(id)}`;
        for (const reply of [
          await fx.tenant.api.get(path),
          await fx.tenant.api.patch(path, { enabled: false }),
          await fx.tenant.api.delete(path),
          await fx.tenant.api.post(`${path}/rotate-secret`),
          await fx.tenant.api.get(`${path}/deliveries`),
          await fx.tenant.api.post(`${path}/deliveries/${UNKNOWN_ID}/retry`),
        ]) {
          expectError(reply, 400, 'invalid_id');
          expect(detailFields(reply)).to.include('id');
        }
      });
    }
  });

  describe('PATCH /webhooks/{id}', () => {
    it('when url, events and description change, then the answer and later reads show them, and no secret', async () => {
      const { webhook, secret } = await createWebhook(fx.tenant, receiver.url, ['device.online'], 'before');
      const url = `http://127.0.0.1:${receiver.port}/elsewhere`;
      const reply = await fx.tenant.api.patch(`/webhooks/${webhook.id}`, { url, events: ['sms.received', 'device.offline'], description: 'after' });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expectWebhook(reply.body);
      expectNoSecret(reply.body, [secret]);
      expect(reply.body).to.include({ id: webhook.id, url, description: 'after', enabled: true, created_at: webhook.created_at });
      expect(reply.body.events).to.have.members(['sms.received', 'device.offline']);
      expect(Date.parse(reply.body.updated_at)).to.be.at.least(Date.parse(webhook.updated_at));
      expect(await readWebhook(fx.tenant, webhook.id)).to.deep.equal(reply.body);
    });

    it('when enabled is set to false, then the webhook is disabled and says it was through the API', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const reply = await fx.tenant.api.patch(`/webhooks/${webhook.id}`, { enabled: false });
      expect(reply.status).to.equal(200);
      expect(reply.body.enabled).to.equal(false);
      expect(reply.body.disabled_reason).to.be.a('string').and.not.empty;
      expect(await readWebhook(fx.tenant, webhook.id)).to.deep.equal(reply.body);
    });

    it('when a webhook disabled after failures is enabled again, then its failure count and reason are reset and its pending delivery is sent', async () => {
      const { webhook, secret } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      receiver.respond = () => 500;
      const disabledNow = nextEvent(fx.gateway.services.webhookSender, 'disabled', (webhooks: { id: string }[]) => webhooks.some((w) => w.id === webhook.id), 10_000);
      await deviceComesOnline();
      await disabledNow;
      const failures = receiver.received.length;
      const disabled = await readWebhook(fx.tenant, webhook.id);
      expect(disabled).to.include({ enabled: false, consecutive_failures: failures });
      expect(disabled.disabled_reason).to.match(/failed for more than 300 ms/);
      const [pending] = await deliveryLog(fx.tenant, webhook.id);
      expect(pending).to.include({ status: 'pending', attempts: failures, last_status_code: 500 });

      receiver.respond = () => 200;
      const resent = recorded(fx.gateway, webhook.id, (result) => result.status === 'delivered');
      const reply = await fx.tenant.api.patch(`/webhooks/${webhook.id}`, { enabled: true });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.include({ enabled: true, consecutive_failures: 0, disabled_reason: null });

      await resent;
      const [delivered] = await receiver.waitFor(1, (request) => request.status === 200);
      expect(verified(secret, delivered!).type).to.equal('device.online');
      expect(await readWebhook(fx.tenant, webhook.id)).to.include({ enabled: true, consecutive_failures: 0, disabled_reason: null });
      const [log] = await deliveryLog(fx.tenant, webhook.id);
      expect(log).to.include({ id: pending.id, status: 'delivered', last_status_code: 200, attempts: failures + 1 });
    });

    const invalid: [label: string, body: unknown][] = [
      ['an empty body', {}],
      ['an unknown field', { colour: 'blue' }],
      ['an empty events list', { events: [] }],
      ['an unknown event', { events: ['sms.sent'] }],
      ['enabled as a string', { enabled: 'yes' }],
      ['url as null', { url: null }],
      ['secret (not settable)', { secret: 'whsec_AAAA' }],
    ];
    for (const [label, body] of invalid) {
      it(`when the body is ${label}, then it answers 400 validation_failed and nothing changes`, async () => {
        const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
        expectError(await fx.tenant.api.patch(`/webhooks/${webhook.id}`, body), 400, 'validation_failed');
        expect(await readWebhook(fx.tenant, webhook.id)).to.deep.equal(webhook);
      });
    }

    it('when the id is unknown, then it answers 404 webhook_not_found', async () => {
      expectError(await fx.tenant.api.patch(`/webhooks/${UNKNOWN_ID}`, { enabled: false }), 404, 'webhook_not_found');
    });

    it('when the key lacks webhooks:write, then it answers 403 and nothing changes', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const key = await fx.keyWith(allBut('webhooks:write'));
      expectError(await key.patch(`/webhooks/${webhook.id}`, { enabled: false }), 403, 'forbidden');
      expect(await readWebhook(fx.tenant, webhook.id)).to.deep.equal(webhook);
    });
  });

  describe('DELETE /webhooks/{id}', () => {
    it('when the webhook exists, then it answers 204, and afterwards it is gone with its delivery log', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      await deviceComesOnline();
      await receiver.waitFor(1);
      const reply = await fx.tenant.api.delete(`/webhooks/${webhook.id}`);
      expect(reply.status).to.equal(204);
      expect(reply.body).to.equal(undefined);
      expectError(await fx.tenant.api.get(`/webhooks/${webhook.id}`), 404, 'webhook_not_found');
      expectError(await fx.tenant.api.get(`/webhooks/${webhook.id}/deliveries`), 404, 'webhook_not_found');
      expectError(await fx.tenant.api.delete(`/webhooks/${webhook.id}`), 404, 'webhook_not_found');
      expect((await fx.tenant.api.get('/webhooks')).body.data).to.deep.equal([]);
      expect(await deliveryRowsOf(fx, webhook.id)).to.deep.equal([]);
    });

    it('when the key lacks webhooks:write, then it answers 403 and the webhook stays', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const key = await fx.keyWith(allBut('webhooks:write'));
      expectError(await key.delete(`/webhooks/${webhook.id}`), 403, 'forbidden');
      expect(await readWebhook(fx.tenant, webhook.id)).to.deep.equal(webhook);
    });
  });

  describe('POST /webhooks/{id}/rotate-secret', () => {
    it('when the secret is rotated, then a new secret is answered once, and deliveries carry two signatures: one for the new secret, one for the old', async () => {
      const { webhook, secret: old } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const reply = await fx.tenant.api.post(`/webhooks/${webhook.id}/rotate-secret`);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(Object.keys(reply.body)).to.have.members(['webhook', 'secret']);
      expectWebhook(reply.body.webhook);
      expect(reply.body.webhook.id).to.equal(webhook.id);
      const fresh: string = reply.body.secret;
      expect(fresh).to.match(SECRET);
      expect(fresh).not.to.equal(old);
      expectNoSecret(await readWebhook(fx.tenant, webhook.id), [old, fresh]);
      expectNoSecret((await fx.tenant.api.get('/webhooks')).body, [old, fresh]);

      await deviceComesOnline();
      const [request] = await receiver.waitFor(1);
      // The whole header verifies with either secret (standardwebhooks accepts any matching v1 signature).
      expect(verified(fresh, request!).type).to.equal('device.online');
      expect(verified(old, request!).type).to.equal('device.online');
      expect(verifies(`whsec_${Buffer.alloc(32, 9).toString('base64')}`, request!), 'a stranger secret').to.equal(false);
      // And each signature on its own belongs to exactly one of them.
      const signatures = signaturesOf(request!);
      expect(signatures).to.have.length(2);
      for (const signature of signatures) expect(signature).to.match(/^v1,[A-Za-z0-9+/]+={0,2}$/);
      const byFresh = signatures.filter((signature) => verifies(fresh, request!, signature));
      const byOld = signatures.filter((signature) => verifies(old, request!, signature));
      expect(byFresh, 'signatures made with the new secret').to.have.length(1);
      expect(byOld, 'signatures made with the old secret').to.have.length(1);
      expect(byFresh[0]).not.to.equal(byOld[0]);
    });

    it('when the secret is rotated twice, then the first secret no longer verifies and the last two do', async () => {
      const { webhook, secret: first } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const second = (await fx.tenant.api.post(`/webhooks/${webhook.id}/rotate-secret`)).body.secret as string;
      const third = (await fx.tenant.api.post(`/webhooks/${webhook.id}/rotate-secret`)).body.secret as string;
      expect(new Set([first, second, third]).size).to.equal(3);
      await deviceComesOnline();
      const [request] = await receiver.waitFor(1);
      expect(signaturesOf(request!)).to.have.length(2);
      expect(verifies(third, request!), 'newest').to.equal(true);
      expect(verifies(second, request!), 'previous').to.equal(true);
      expect(verifies(first, request!), 'rotated out twice').to.equal(false);
    });

    it('when nothing was rotated, then a delivery carries exactly one signature', async () => {
      const { secret } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      await deviceComesOnline();
      const [request] = await receiver.waitFor(1);
      expect(signaturesOf(request!)).to.have.length(1);
      expect(verifies(secret, request!)).to.equal(true);
    });

    it('when the key lacks webhooks:write, then it answers 403 and the secret stays', async () => {
      const { webhook, secret } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const key = await fx.keyWith(allBut('webhooks:write'));
      expectError(await key.post(`/webhooks/${webhook.id}/rotate-secret`), 403, 'forbidden');
      await deviceComesOnline();
      const [request] = await receiver.waitFor(1);
      expect(signaturesOf(request!)).to.have.length(1);
      expect(verifies(secret, request!)).to.equal(true);
    });

    it('when the id is unknown, then it answers 404 webhook_not_found', async () => {
      expectError(await fx.tenant.api.post(`/webhooks/${UNKNOWN_ID}/rotate-secret`), 404, 'webhook_not_found');
    });
  });

  describe('GET /webhooks/{id}/deliveries', () => {
    it('when a delivery succeeded, then the log shows it delivered: one attempt, the status code, no next attempt', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const done = recorded(fx.gateway, webhook.id);
      await deviceComesOnline();
      const [request] = await receiver.waitFor(1);
      await done;
      const log = await deliveryLog(fx.tenant, webhook.id);
      expect(log).to.have.length(1);
      const [delivery] = log;
      expectDelivery(delivery);
      expect(delivery).to.include({
        id: request!.headers['webhook-id'],
        event_id: request!.json.id,
        event_type: 'device.online',
        status: 'delivered',
        attempts: 1,
        last_status_code: 204,
        last_error: null,
        next_attempt_at: null,
      });
      expect(Date.parse(delivery.retry_until) - Date.parse(delivery.created_at)).to.be.closeTo(DAY_MS, 60_000);
    });

    it('when an attempt failed, then the log shows the delivery pending with its status code, error and next attempt', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      receiver.respond = () => 500;
      const failed = recorded(fx.gateway, webhook.id);
      await deviceComesOnline();
      await failed;
      const [delivery] = await deliveryLog(fx.tenant, webhook.id);
      expectDelivery(delivery);
      expect(delivery).to.include({ event_type: 'device.online', status: 'pending', last_status_code: 500, delivered_at: null });
      // The next attempt may already have been made (and failed) by the time the log is read.
      expect(delivery.attempts).to.be.within(1, 2);
      expect(delivery.last_error).to.contain('500');
      expect(delivery.next_attempt_at).to.be.a('string');
      expect(Date.parse(delivery.next_attempt_at)).to.be.at.most(Date.parse(delivery.retry_until));
    });

    it('when there are more deliveries than the limit, then pages follow each other newest first', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      for (let i = 1; i <= 3; i++) {
        await deviceComesOnline();
        await receiver.waitFor(i);
      }
      const all = await deliveryLog(fx.tenant, webhook.id);
      expect(all).to.have.length(3);
      const first = await fx.tenant.api.get(`/webhooks/${webhook.id}/deliveries?limit=2`);
      expect(first.status).to.equal(200);
      expect(first.body.data.map((d: { id: string }) => d.id)).to.deep.equal(all.slice(0, 2).map((d) => d.id));
      expect(first.body.next_cursor).to.be.a('string');
      const second = await fx.tenant.api.get(`/webhooks/${webhook.id}/deliveries?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
      expect(second.body.data.map((d: { id: string }) => d.id)).to.deep.equal([all[2].id]);
      expect(second.body.next_cursor).to.equal(null);
      const created = all.map((d) => Date.parse(d.created_at));
      expect(created).to.deep.equal([...created].sort((a, b) => b - a));
      // The devices came online in order: the newest delivery is the last device's.
      const payloads = receiver.received.map((r) => r.json.data.device.id);
      expect(payloads).to.deep.equal(devices.map((device) => device.id));
    });

    it('when the webhook has no deliveries yet, then the log is empty', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const reply = await fx.tenant.api.get(`/webhooks/${webhook.id}/deliveries`);
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({ data: [], next_cursor: null });
    });
  });

  describe('POST /webhooks/{id}/deliveries/{delivery}/retry (errors)', () => {
    it('when the delivery is unknown, then it answers 404 delivery_not_found', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      expectError(await fx.tenant.api.post(`/webhooks/${webhook.id}/deliveries/${UNKNOWN_ID}/retry`), 404, 'delivery_not_found');
    });

    it("when the delivery belongs to another webhook of the account, then it answers 404 delivery_not_found and nothing is sent", async () => {
      const { webhook: mine } = await createWebhook(fx.tenant, receiver.url, ['device.offline']);
      const { webhook: sibling } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const delivered = recorded(fx.gateway, sibling.id);
      await deviceComesOnline();
      await delivered;
      const [delivery] = await deliveryLog(fx.tenant, sibling.id);
      expectError(await fx.tenant.api.post(`/webhooks/${mine.id}/deliveries/${delivery.id}/retry`), 404, 'delivery_not_found');
      expect((await deliveryLog(fx.tenant, sibling.id))[0]).to.deep.equal(delivery);
    });

    it('when the webhook is unknown, then it answers 404 webhook_not_found', async () => {
      expectError(await fx.tenant.api.post(`/webhooks/${UNKNOWN_ID}/deliveries/${UNKNOWN_ID}/retry`), 404, 'webhook_not_found');
    });

    for (const id of MALFORMED_IDS) {
      it(`when the delivery id is "${id}", then it answers 400 invalid_id`, async () => {
        const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
        const reply = await fx.tenant.api.post(`/webhooks/${webhook.id}/deliveries/${encodeURIComponent(id)}/retry`);
        expectError(reply, 400, 'invalid_id');
        expect(detailFields(reply)).to.include('delivery');
      });
    }

    it('when the key lacks webhooks:write, then it answers 403', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      await deviceComesOnline();
      await receiver.waitFor(1);
      const [delivery] = await deliveryLog(fx.tenant, webhook.id);
      const key = await fx.keyWith(allBut('webhooks:write'));
      expectError(await key.post(`/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`), 403, 'forbidden');
    });
  });
});

describe('webhooks: retrying a delivery that was given up', () => {
  // A delivery is given up 100 ms after its event: the second failed attempt ends it.
  const fx = useGateway({ config: { webhooks: webhookConfig({ retryForMs: 100 }) } });
  let receiver: Receiver;
  let device: SimulatedDevice | undefined;

  beforeEach(async () => {
    receiver = await fx.receiver();
  });
  afterEach(async () => {
    device = undefined;
    await dropWebhooks(fx.gateway, [fx.tenant.accountId]);
  });

  it('when the receiver failed until the retry window closed, then the delivery is failed, and a retry sends it again and it is delivered', async () => {
    const { webhook, secret } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
    receiver.respond = () => 500;
    const givenUp = recorded(fx.gateway, webhook.id, (result) => result.status === 'failed');
    device = await fx.connectDevice();
    await givenUp;

    const [failed] = await deliveryLog(fx.tenant, webhook.id);
    expectDelivery(failed);
    expect(failed).to.include({ event_type: 'device.online', status: 'failed', last_status_code: 500, next_attempt_at: null, delivered_at: null });
    expect(failed.attempts).to.be.at.least(1);
    expect(failed.last_error).to.contain('500');
    const attemptsBefore = failed.attempts as number;
    expect(receiver.received).to.have.length(attemptsBefore);

    receiver.respond = () => 200;
    const redelivered = recorded(fx.gateway, webhook.id, (result) => result.status === 'delivered');
    const retry = await fx.tenant.api.post(`/webhooks/${webhook.id}/deliveries/${failed.id}/retry`);
    expect(retry.status, JSON.stringify(retry.body)).to.equal(200);
    expectDelivery(retry.body);
    expect(retry.body).to.include({ id: failed.id, status: 'pending' });
    expect(retry.body.next_attempt_at).to.be.a('string');
    expect(Date.parse(retry.body.retry_until), 'a fresh retry window').to.be.above(Date.parse(failed.retry_until));
    await redelivered;

    const [request] = await receiver.waitFor(1, (r) => r.status === 200);
    expect(request!.headers['webhook-id'], 'the same delivery id, so a receiver can de-duplicate').to.equal(failed.id);
    const event = verified(secret, request!);
    expect(event.id).to.equal(failed.event_id);
    const [delivered] = await deliveryLog(fx.tenant, webhook.id);
    expectDelivery(delivered);
    expect(delivered).to.include({ id: failed.id, status: 'delivered', attempts: attemptsBefore + 1, last_status_code: 200, last_error: null, next_attempt_at: null });
  });
});
