// Webhooks that survive receiver outages. A webhook is disabled by how long its endpoint has
// failed without a single success (WEBHOOK_DISABLE_AFTER, seconds), never by how many attempts
// failed: a short blip at a high event rate leaves it enabled and every event arrives. Events
// keep being recorded while a webhook is disabled; switching it back on sends each of them
// once, signed, in order per SMS; those whose retry window closed meanwhile are given up, never
// sent.
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { startGateway } from '../support/gateway.ts';
import { testDatabaseUrl } from '../support/environment.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { connectDevice, liftLimits, nextEvent } from '../support/devices.ts';
import { Receiver, type Received } from '../support/receiver.ts';
import { createWebhook, deliveryLog, dropWebhooks, readWebhook, recorded, verified, webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { deliveryRowsOf } from '../support/test-data.ts';

const PHONE = '+79161234567';
const SENDER = '+79005550101';
const STATUS_ORDER = ['processing', 'sent', 'delivered'];

/** One shared set-up: a gateway with these webhook settings, a fresh tenant, receiver and phone per test. */
function withGateway(settings: Parameters<typeof webhookConfig>[0]) {
  const context = {} as { gateway: Gateway; tenant: Tenant; receiver: Receiver; phone: SimulatedDevice };
  before(async function () {
    // An embedded database starts slowly.
    this.timeout(60_000);
    context.gateway = await startGateway({ webhooks: webhookConfig(settings) });
  });
  after(async () => context.gateway.stop());
  beforeEach(async () => {
    context.tenant = await createTenant(context.gateway);
    context.receiver = new Receiver();
    await context.receiver.start();
    context.phone = await connectDevice(context.gateway, context.tenant);
    await liftLimits(context.gateway, context.tenant, context.phone.id);
    const reply = await context.tenant.api.patch(`/devices/${context.phone.id}/settings`, { forward_incoming_sms: true });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  });
  afterEach(async () => {
    await context.phone.stop();
    await dropWebhooks(context.gateway, [context.tenant.accountId]);
    await context.receiver.stop();
  });
  return context;
}

/** Requests answered 2xx, by webhook-id: how many times each delivery was accepted. */
function acceptedById(receiver: Receiver): Map<string, Received[]> {
  const byId = new Map<string, Received[]>();
  for (const request of receiver.received.filter((r) => r.status < 300)) {
    const id = String(request.headers['webhook-id']);
    byId.set(id, [...(byId.get(id) ?? []), request]);
  }
  return byId;
}

async function deliveryRows(gateway: Gateway, webhookId: string): Promise<number> {
  return (await deliveryRowsOf(gateway, webhookId)).length;
}

describe('webhooks: receiver outages', () => {
  describe('with the default WEBHOOK_DISABLE_AFTER (5 days)', () => {
    const c = withGateway({});

    it('when the receiver fails 60 requests in a burst (more than the old limit of 50 attempts) and then answers again, then the webhook stays enabled and every event arrives once', async function () {
      this.timeout(30_000);
      const EVENTS = 60;
      const { webhook, secret } = await createWebhook(c.tenant, c.receiver.url, ['sms.received']);
      c.receiver.respond = (_request, index) => (index < EVENTS ? 503 : 204);
      let disabled = false;
      const onDisabled = (webhooks: { id: string }[]) => (disabled ||= webhooks.some((w) => w.id === webhook.id));
      c.gateway.services.webhookSender.on('disabled', onDisabled);
      try {
        for (let i = 0; i < EVENTS; i++) await c.phone.receive(SENDER, `burst ${i}`);
        await c.receiver.waitFor(EVENTS, (r) => r.status < 300, 20_000);
      } finally {
        c.gateway.services.webhookSender.off('disabled', onDisabled);
      }
      expect(c.receiver.received.filter((r) => r.status === 503)).to.have.length(EVENTS);
      expect(disabled, 'a "disabled" was emitted').to.equal(false);
      const accepted = acceptedById(c.receiver);
      expect(accepted.size).to.equal(EVENTS);
      for (const requests of accepted.values()) expect(requests).to.have.length(1);
      const messages = [...accepted.values()].map(([request]) => verified(secret, request!).data.sms.message);
      expect(new Set(messages)).to.have.property('size', EVENTS);
      // The streak ended with the first success after the blip.
      await eventually('the streak to end', async () => ((await readWebhook(c.tenant, webhook.id)).failing_since === null ? true : undefined));
      expect(await readWebhook(c.tenant, webhook.id)).to.include({ enabled: true, consecutive_failures: 0, failing_since: null, disabled_at: null, disabled_reason: null });
    });
  });

  describe('with WEBHOOK_DISABLE_AFTER of 300 ms', () => {
    const c = withGateway({ disableAfterMs: 300 });

    it('when an attempt fails, then failing_since is when the streak began; a success ends it; the next failure starts a new one', async () => {
      const { webhook } = await createWebhook(c.tenant, c.receiver.url, ['sms.received']);
      c.receiver.respond = () => 503;
      const failed = recorded(c.gateway, webhook.id, (result) => result.status === 'pending');
      const before = Date.now();
      await c.phone.receive(SENDER, 'one');
      await failed;
      const failing = await readWebhook(c.tenant, webhook.id);
      expect(failing.enabled).to.equal(true);
      expect(failing.failing_since).to.be.a('string');
      expect(Date.parse(failing.failing_since!)).to.be.within(before - 1000, Date.now() + 1000);

      c.receiver.respond = () => 204;
      await recorded(c.gateway, webhook.id, (result) => result.status === 'delivered');
      expect(await readWebhook(c.tenant, webhook.id)).to.include({ enabled: true, failing_since: null, consecutive_failures: 0 });

      c.receiver.respond = () => 503;
      const again = recorded(c.gateway, webhook.id, (result) => result.status === 'pending');
      await c.phone.receive(SENDER, 'two');
      await again;
      const second = await readWebhook(c.tenant, webhook.id);
      expect(Date.parse(second.failing_since!), 'a new streak').to.be.above(Date.parse(failing.failing_since!));
    });

    it('when the receiver fails every attempt for longer than 300 ms, then the webhook is disabled, with when and why, and emits "disabled"', async function () {
      this.timeout(15_000);
      const { webhook } = await createWebhook(c.tenant, c.receiver.url, ['sms.received']);
      c.receiver.respond = () => 503;
      const disabledNow = nextEvent(c.gateway.services.webhookSender, 'disabled', (webhooks: { id: string }[]) => webhooks.some((w) => w.id === webhook.id), 10_000);
      await c.phone.receive(SENDER, 'never lands');
      // One "disabled" can name several webhooks: the previous test's webhook is still failing too.
      const [webhooks] = (await disabledNow) as [{ id: string; account_id: string; failing_since: Date; disabled_at: Date }[]];
      const event = webhooks.find((w) => w.id === webhook.id);
      expect(event).to.include({ id: webhook.id, account_id: c.tenant.accountId });
      const read = await readWebhook(c.tenant, webhook.id);
      expect(read.enabled).to.equal(false);
      expect(read.disabled_reason).to.match(/every attempt failed for more than 300 ms \(failing since /);
      expect(Date.parse(read.disabled_at!) - Date.parse(read.failing_since!), 'disabled more than 300 ms into the streak').to.be.above(300);
      expect(c.receiver.received.length).to.be.at.least(2);
      expect(read.consecutive_failures).to.equal(c.receiver.received.length);
    });

    it('when SMS events happen while the webhook is disabled, then they wait unsent, and once it is enabled each arrives once, signed, in status order', async function () {
      this.timeout(30_000);
      const SMS = 10;
      const { webhook, secret } = await createWebhook(c.tenant, c.receiver.url, ['sms.status_changed', 'sms.received']);
      c.receiver.respond = () => 503;
      const disabledNow = nextEvent(c.gateway.services.webhookSender, 'disabled', (webhooks: { id: string }[]) => webhooks.some((w) => w.id === webhook.id), 10_000);
      await c.phone.receive(SENDER, 'first, failing');
      await disabledNow;
      const failedAttempts = c.receiver.received.length;

      // While disabled: 10 SMS travel processing -> sent -> delivered, 30 events.
      const delivered = new Set<string>();
      const allDelivered = nextEvent(c.phone, 'report', (smsId: string, status: string) => status === 'delivered' && delivered.add(smsId).size === SMS, 15_000);
      for (let i = 0; i < SMS; i++) {
        const reply = await c.tenant.api.post('/sms', { phone: PHONE, message: `while disabled ${i}` });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      }
      await allDelivered;
      await eventually('31 delivery rows', async () => ((await deliveryRows(c.gateway, webhook.id)) === 1 + 3 * SMS ? true : undefined));
      const waiting = await deliveryLog(c.tenant, webhook.id);
      expect(waiting.filter((d) => d.status === 'pending' && d.attempts === 0)).to.have.length(3 * SMS);
      expect(c.receiver.received, 'nothing sent while disabled').to.have.length(failedAttempts);

      c.receiver.respond = () => 204;
      const reply = await c.tenant.api.patch(`/webhooks/${webhook.id}`, { enabled: true });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.include({ enabled: true, failing_since: null, disabled_at: null, disabled_reason: null, consecutive_failures: 0 });
      await c.receiver.waitFor(1 + 3 * SMS, (r) => r.status < 300, 15_000);

      const accepted = acceptedById(c.receiver);
      expect(accepted.size).to.equal(1 + 3 * SMS);
      for (const requests of accepted.values()) expect(requests, 'accepted once').to.have.length(1);
      const events = c.receiver.received.filter((r) => r.status < 300).map((request) => verified(secret, request));
      const bySms = new Map<string, string[]>();
      for (const event of events.filter((e) => e.type === 'sms.status_changed')) {
        bySms.set(event.data.sms.id, [...(bySms.get(event.data.sms.id) ?? []), event.data.sms.internal_status]);
      }
      expect(bySms.size).to.equal(SMS);
      for (const statuses of bySms.values()) expect(statuses).to.deep.equal(STATUS_ORDER);
      // The last outcomes are recorded just after the receiver answered them.
      await eventually('every delivery recorded as delivered', async () =>
        (await deliveryLog(c.tenant, webhook.id)).every((d) => d.status === 'delivered') ? true : undefined,
      );
    });
  });

  describe('with a retry window (WEBHOOK_RETRY_FOR) of 500 ms', () => {
    const c = withGateway({ retryForMs: 500 });

    it('when an event waits for a disabled webhook past its retry window, then it is given up unsent, and enabling the webhook does not send it', async function () {
      this.timeout(15_000);
      const { webhook, secret } = await createWebhook(c.tenant, c.receiver.url, ['sms.received']);
      expect((await c.tenant.api.patch(`/webhooks/${webhook.id}`, { enabled: false })).status).to.equal(200);
      const expired = nextEvent(c.gateway.services.webhookSender, 'expired', (rows: { webhook_id: string }[]) => rows.some((row) => row.webhook_id === webhook.id), 10_000);
      await c.phone.receive(SENDER, 'too late');
      await expired;
      const [givenUp] = await deliveryLog(c.tenant, webhook.id);
      expect(givenUp).to.include({ status: 'failed', attempts: 0, last_status_code: null, next_attempt_at: null });
      expect(givenUp.last_error).to.match(/retry window closed while the webhook was disabled/);

      expect((await c.tenant.api.patch(`/webhooks/${webhook.id}`, { enabled: true })).status).to.equal(200);
      await c.phone.receive(SENDER, 'in time');
      const [request] = await c.receiver.waitFor(1);
      expect(verified(secret, request!).data.sms.message).to.equal('in time');
      expect(c.receiver.received.map((r) => r.headers['webhook-id'])).to.not.include(givenUp.id);
    });
  });

  describe('the warning when the gateway disables a webhook', () => {
    let gateway: Gateway;
    let tenant: Tenant;
    let receiver: Receiver;
    let phone: SimulatedDevice;
    const lines: Record<string, any>[] = [];

    before(async function () {
      this.timeout(60_000);
      // The gateway's own log, read back: started as test/support/gateway.ts does, with a stream.
      const config: Config = {
        ...loadConfig({}),
        port: 0,
        host: '127.0.0.1',
        mqttPort: 0,
        databaseUrl: testDatabaseUrl(),
        dataDir: ':memory:',
        logLevel: 'warn',
        webhooks: webhookConfig({ disableAfterMs: 300 }),
      };
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const text of chunk.toString().split('\n')) if (text.trim()) lines.push(JSON.parse(text));
          done();
        },
      });
      gateway = await Gateway.start(config, createLogger('warn', sink));
      tenant = await createTenant(gateway);
      receiver = new Receiver();
      await receiver.start();
      phone = await connectDevice(gateway, tenant);
      expect((await tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
    });
    after(async () => {
      await phone.stop();
      await dropWebhooks(gateway, [tenant.accountId]);
      await receiver.stop();
      await gateway.stop();
    });

    it('when a webhook is disabled for failing too long, then one warning names the webhook, the account and since when, never the URL or the secret', async function () {
      this.timeout(15_000);
      const url = `${receiver.url}?token=do-not-log-me`;
      const { webhook, secret } = await createWebhook(tenant, url, ['sms.received']);
      receiver.respond = () => 503;
      const disabled = nextEvent(gateway.services.webhookSender, 'disabled', (webhooks: { id: string }[]) => webhooks.some((w) => w.id === webhook.id), 10_000);
      await phone.receive(SENDER, 'never lands');
      await disabled;
      const warnings = lines.filter((line) => line.webhookId === webhook.id);
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.include({ level: 40, accountId: tenant.accountId });
      expect(warnings[0]!.msg).to.match(/webhook disabled/);
      expect(Date.parse(warnings[0]!.failingSince)).to.equal(Date.parse((await readWebhook(tenant, webhook.id)).failing_since!));
      const everything = JSON.stringify(lines);
      for (const leak of ['do-not-log-me', secret, secret.replace(/^whsec_/, ''), receiver.url]) expect(everything).to.not.contain(leak);
    });
  });

  describe('WEBHOOK_DISABLE_AFTER', () => {
    it('when it is not set, then a webhook is disabled after 5 days of failure', () => {
      expect(loadConfig({}).webhooks.disableAfterMs).to.equal(5 * 24 * 60 * 60 * 1000);
    });

    it('when it is set, then it is read as seconds', () => {
      expect(loadConfig({ WEBHOOK_DISABLE_AFTER: '600' }).webhooks.disableAfterMs).to.equal(600_000);
    });

    for (const bad of ['0', '-5', '1.5', 'ten', '31536001']) {
      it(`when it is "${bad}", then the configuration is refused naming the variable`, () => {
        expect(() => loadConfig({ WEBHOOK_DISABLE_AFTER: bad })).to.throw(/WEBHOOK_DISABLE_AFTER: must be a whole number from 1 to 31536000/);
      });
    }
  });
});
