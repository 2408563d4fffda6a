// The SSRF guard: by default a webhook may not point the gateway at loopback, private,
// link-local or multicast addresses, written literally or reached through a name; only http and
// https, no credentials in the URL. WEBHOOK_ALLOWED_HOSTS (host names, addresses, CIDR ranges)
// opens named destinations. The check is made at creation, on every change of the url, and
// again at every send: a webhook created while its destination was allowed is not delivered
// once a restarted gateway no longer allows it.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { startGateway } from '../support/gateway.ts';
import { useGateway } from '../support/use-gateway.ts';
import { ApiClient, createTenant, type Tenant } from '../support/tenant.ts';
import { connectDevice } from '../support/devices.ts';
import { Receiver } from '../support/receiver.ts';
import { testDatabase } from '../support/environment.ts';
import { tempDataDir } from '../support/cli.ts';
import { detailFields, expectError } from '../support/expectations.ts';
import { createWebhook, deliveryLog, dropWebhooks, readWebhook, recorded, verified, webhookConfig } from '../support/webhooks.ts';

/** A public address: no DNS needed, and no event is ever sent to it in these tests. */
const PUBLIC_URL = 'http://1.1.1.1/hooks/sms';

/** URLs a default gateway refuses at creation, with what the message must name. */
const REFUSED: [url: string, why: RegExp][] = [
  ['http://127.0.0.1/x', /loopback/],
  ['http://10.0.0.1/x', /private/],
  ['http://169.254.169.254/latest/meta-data', /link-local/],
  ['http://localhost:8080/x', /localhost.*loopback/],
  ['http://[::1]/x', /loopback/],
  ['http://[::ffff:127.0.0.1]/x', /loopback/],
  ['http://192.168.1.10/x', /private/],
  ['http://172.16.0.1/x', /private/],
  ['http://0.0.0.0/x', /loopback|reserved|unspecified/],
  ['http://[::]/x', /loopback|reserved|unspecified/],
  ['http://2130706433/x', /loopback/], // 127.0.0.1 as one decimal number
  ['http://0x7f.1/x', /loopback/], // 127.0.0.1 in hex shorthand
  ['https://127.0.0.1:8443/x', /loopback/],
  ['http://[fe80::1]/x', /link-local/],
  ['http://[fc00::1]/x', /private/],
  ['http://224.0.0.1/x', /multicast/],
  ['http://100.64.0.1/x', /private|reserved/],
  ['http://[::ffff:10.0.0.1]/x', /private/],
  ['ftp://example.com/x', /http or https/],
  ['file:///etc/passwd', /http or https/],
  ['gopher://127.0.0.1:6379/_x', /http or https/],
  ['http://user:pass@example.com/x', /credentials/],
  ['http://user@1.1.1.1/x', /credentials/],
  ['http://does-not-exist.invalid/x', /does not resolve/],
];

describe('webhooks: SSRF guard', () => {
  describe('on a gateway without WEBHOOK_ALLOWED_HOSTS', () => {
    const fx = useGateway({ config: { webhooks: webhookConfig({ allowedHosts: [] }) } });

    afterEach(async () => dropWebhooks(fx.gateway, [fx.tenant.accountId]));

    for (const [url, why] of REFUSED) {
      it(`when a webhook is created for ${url}, then it answers 400 invalid_webhook_url saying why, and creates nothing`, async () => {
        const reply = await fx.tenant.api.post('/webhooks', { url, events: ['sms.status_changed'] });
        expectError(reply, 400, 'invalid_webhook_url');
        expect(detailFields(reply)).to.deep.equal(['url']);
        expect(reply.body.error.message).to.match(why);
        expect(reply.body.error.details[0].message).to.match(why);
        expect((await fx.tenant.api.get('/webhooks')).body.data).to.deep.equal([]);
      });
    }

    it('when a webhook is created for a public address, then it answers 201', async () => {
      const { webhook } = await createWebhook(fx.tenant, PUBLIC_URL, ['sms.status_changed']);
      expect(webhook.url).to.equal(PUBLIC_URL);
    });

    for (const [url, why] of REFUSED.filter(([url]) => ['http://127.0.0.1/x', 'http://169.254.169.254/latest/meta-data', 'http://localhost:8080/x', 'http://[::1]/x', 'ftp://example.com/x', 'http://user:pass@example.com/x'].includes(url))) {
      it(`when a webhook's url is changed to ${url}, then it answers 400 invalid_webhook_url and the url stays`, async () => {
        const { webhook } = await createWebhook(fx.tenant, PUBLIC_URL, ['sms.status_changed']);
        const reply = await fx.tenant.api.patch(`/webhooks/${webhook.id}`, { url });
        expectError(reply, 400, 'invalid_webhook_url');
        expect(reply.body.error.message).to.match(why);
        expect(await readWebhook(fx.tenant, webhook.id)).to.deep.equal(webhook);
      });
    }

    it('when the url is refused, then a change of other fields in the same request is not applied either', async () => {
      const { webhook } = await createWebhook(fx.tenant, PUBLIC_URL, ['sms.status_changed']);
      const reply = await fx.tenant.api.patch(`/webhooks/${webhook.id}`, { url: 'http://10.0.0.1/x', events: ['device.online'], enabled: false });
      expectError(reply, 400, 'invalid_webhook_url');
      expect(await readWebhook(fx.tenant, webhook.id)).to.deep.equal(webhook);
    });
  });

  /** A gateway allowing `allowedHosts`, a fresh tenant and receiver per test, and what they clean up. */
  function withAllowedHosts(allowedHosts: string[], tests: (context: () => { gateway: Gateway; tenant: Tenant; receiver: Receiver; online: () => Promise<SimulatedDevice> }) => void) {
    describe(`with WEBHOOK_ALLOWED_HOSTS=${allowedHosts.join(',')}`, function () {
      // An embedded database starts slowly.
      this.timeout(30_000);
      const fx = useGateway({ config: { webhooks: webhookConfig({ allowedHosts }) } });
      let receiver: Receiver;

      beforeEach(async () => {
        receiver = await fx.receiver();
      });
      afterEach(async () => {
        await dropWebhooks(fx.gateway, [fx.tenant.accountId]);
      });

      tests(() => ({
        gateway: fx.gateway,
        tenant: fx.tenant,
        receiver,
        online: () => fx.connectDevice(),
      }));
    });
  }

  withAllowedHosts(['127.0.0.1'], (context) => {
    it('when a webhook is created for the local receiver, then it is created and delivered to', async () => {
      const { tenant, receiver, online } = context();
      const { secret } = await createWebhook(tenant, receiver.url, ['device.online']);
      const device = await online();
      const [request] = await receiver.waitFor(1);
      expect(verified(secret, request!).data.device.id).to.equal(device.id);
    });

    it('when the IPv4-mapped form [::ffff:127.0.0.1] is used, then it is the same address and is allowed', async () => {
      const { tenant, receiver } = context();
      const reply = await tenant.api.post('/webhooks', { url: `http://[::ffff:127.0.0.1]:${receiver.port}/hook`, events: ['device.online'] });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    });

    it('when a webhook is created for another private address, then it is still refused', async () => {
      const { tenant } = context();
      expectError(await tenant.api.post('/webhooks', { url: 'http://127.0.0.2/x', events: ['device.online'] }), 400, 'invalid_webhook_url');
      expectError(await tenant.api.post('/webhooks', { url: 'http://10.0.0.1/x', events: ['device.online'] }), 400, 'invalid_webhook_url');
    });
  });

  withAllowedHosts(['127.0.0.0/8'], (context) => {
    it('when a webhook is created for the local receiver, then it is created and delivered to', async () => {
      const { tenant, receiver, online } = context();
      const { secret } = await createWebhook(tenant, receiver.url, ['device.online']);
      const device = await online();
      const [request] = await receiver.waitFor(1);
      expect(verified(secret, request!).data.device.id).to.equal(device.id);
    });

    it('when a webhook is created for an address outside the range, then it is still refused', async () => {
      const { tenant } = context();
      for (const url of ['http://10.0.0.1/x', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/x', 'http://192.168.1.10/x']) {
        const reply = await tenant.api.post('/webhooks', { url, events: ['device.online'] });
        expectError(reply, 400, 'invalid_webhook_url');
      }
      expect((await tenant.api.get('/webhooks')).body.data).to.deep.equal([]);
    });
  });

  withAllowedHosts(['localhost'], (context) => {
    it('when a webhook is created for http://localhost, then it is created and delivered to', async () => {
      const { tenant, receiver, online } = context();
      const { secret } = await createWebhook(tenant, `http://localhost:${receiver.port}/hook`, ['device.online']);
      const device = await online();
      const [request] = await receiver.waitFor(1);
      expect(verified(secret, request!).data.device.id).to.equal(device.id);
    });

    it('when a webhook is created for the address 127.0.0.1, then it is refused: a name opens only that name', async () => {
      const { tenant, receiver } = context();
      const reply = await tenant.api.post('/webhooks', { url: receiver.url, events: ['device.online'] });
      expectError(reply, 400, 'invalid_webhook_url');
      expect(reply.body.error.message).to.match(/loopback/);
    });
  });

  describe('when a gateway restarts without the allowance a webhook was created under', () => {
    const secretKey = randomBytes(32);
    let dataDir: { dir: string; remove: () => void } | undefined;
    let receiver: Receiver;
    let gateways: Gateway[] = [];
    let devices: SimulatedDevice[] = [];
    let accountId: string | undefined;

    beforeEach(async () => {
      // PGlite keeps its files in the data directory; PostgreSQL is the suite's database.
      dataDir = testDatabase().kind === 'pglite' ? tempDataDir('ssrf') : undefined;
      receiver = new Receiver();
      await receiver.start();
    });
    afterEach(async () => {
      await Promise.all(devices.map((device) => device.stop()));
      devices = [];
      const live = gateways.at(-1);
      if (live && accountId) await dropWebhooks(live, [accountId]).catch(() => undefined);
      for (const gateway of gateways) await gateway.stop().catch(() => undefined);
      gateways = [];
      await receiver.stop();
      dataDir?.remove();
    });

    async function start(allowedHosts: string[]): Promise<Gateway> {
      const gateway = await startGateway({
        ...(dataDir ? { dataDir: dataDir.dir } : {}),
        webhooks: webhookConfig({ allowedHosts, secretKey }),
      });
      gateways.push(gateway);
      return gateway;
    }

    it('then its deliveries never reach the receiver, and the delivery log shows why', async function () {
      this.timeout(60_000);
      // Created while allowed: one webhook by address, one by name; both are delivered to.
      const first = await start(['127.0.0.1', 'localhost']);
      const tenant = await createTenant(first);
      accountId = tenant.accountId;
      const byAddress = await createWebhook(tenant, receiver.url, ['device.online']);
      const byName = await createWebhook(tenant, `http://localhost:${receiver.port}/hook`, ['device.online']);
      const before = await connectDevice(first, tenant);
      devices.push(before);
      await receiver.waitFor(2);
      expect(verified(byAddress.secret, receiver.received[0]!).type).to.equal('device.online');
      await before.stop();
      devices = [];
      await first.stop();
      gateways = [];

      // The same database, no allowance: the next events are attempted and refused at send time.
      const second = await start([]);
      const api = new ApiClient(`http://127.0.0.1:${second.httpPort}/api/ext/v1`, tenant.key);
      const again = { ...tenant, api };
      const refusedByAddress = recorded(second, byAddress.webhook.id);
      const refusedByName = recorded(second, byName.webhook.id);
      const after = await connectDevice(second, tenant);
      devices.push(after);
      const [addressResult, nameResult] = await Promise.all([refusedByAddress, refusedByName]);
      expect(receiver.received, 'requests the receiver got').to.have.length(2);

      for (const [result, webhookId] of [[addressResult, byAddress.webhook.id], [nameResult, byName.webhook.id]] as const) {
        expect(result).to.include({ statusCode: null });
        expect(result.status).to.not.equal('delivered');
        expect(result.error).to.match(/not allowed|may not reach/);
        const log = await deliveryLog(again, webhookId);
        const refused = log.find((delivery) => delivery.id === result.id);
        expect(refused, 'the refused delivery is in the log').to.not.equal(undefined);
        expect(refused).to.include({ event_type: 'device.online', last_status_code: null, delivered_at: null });
        expect(refused.status).to.not.equal('delivered');
        expect(refused.last_error).to.match(/not allowed|may not reach/);
      }
      expect(receiver.received, 'requests the receiver got').to.have.length(2);
    });
  });
});
