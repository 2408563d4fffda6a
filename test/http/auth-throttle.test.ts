// Throttling of failed authentication (issue 10, item 7). Failed keys, tokens and passwords are
// counted per client address, over HTTP and MQTT together; past AUTH_FAILURE_LIMIT within
// AUTH_FAILURE_WINDOW the address is refused for the window (HTTP 429 with Retry-After, CONNACK 5
// after a delay) without its key being checked. Requests made before the limit, and any from
// another address, are not affected; a valid key from a refused address is refused until the
// refusal ends. The gateway's ManualClock moves the window, so no test waits for it.
import { expect } from 'chai';
import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Gateway } from '../../src/gateway.ts';
import { ManualClock } from '../../src/common/clock.ts';
import { Metrics } from '../../src/common/metrics.ts';
import { createLogger } from '../../src/common/logger.ts';
import { AuthThrottle } from '../../src/common/auth-throttle.ts';
import { clientAddressKey } from '../../src/common/client-address.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, registerDevice, type Tenant } from '../support/tenant.ts';
import { mqttUrl, RawClients } from '../support/mqtt.ts';

const LIMIT = 5;
const WINDOW_MS = 60_000;
const REFUSAL_DELAY_MS = 300;
const BAD_KEY = 'sgw_0123456789_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

interface Answer {
  status: number;
  retryAfter: string | undefined;
  code: string | undefined;
}

/** GET /api/ext/v1/devices with this key, from a chosen local address (127.0.0.x are all this machine). */
function listDevices(gateway: Gateway, key: string | undefined, from = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: gateway.httpPort,
        path: '/api/ext/v1/devices',
        localAddress: from,
        headers: key ? { authorization: `Bearer ${key}` } : {},
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const body = text ? (JSON.parse(text) as { error?: { code?: string } }) : {};
          resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], code: body.error?.code });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('authentication throttle: failed keys per client address', () => {
  const clock = new ManualClock();
  let gateway: Gateway;
  let tenant: Tenant;
  let clients: RawClients;
  const metric = (name: string, channel: 'http' | 'mqtt') => gateway.services.metrics.value(name, { channel });

  before(async function () {
    // Starting a gateway on the embedded database takes longer than a test on a busy machine.
    this.timeout(Math.max(this.timeout(), 30_000));
    gateway = await startGateway({ authThrottle: { failureLimit: LIMIT, windowMs: WINDOW_MS, mqttRefusalDelayMs: REFUSAL_DELAY_MS } }, clock);
    clients = new RawClients(() => mqttUrl(gateway));
  });
  beforeEach(async () => {
    tenant = await createTenant(gateway);
  });
  afterEach(async () => {
    await clients.endAll();
    // Every refusal has ended and every count has drained before the next test.
    clock.advance(2 * WINDOW_MS);
  });
  after(async () => gateway.stop());

  describe('when one address sends unknown API keys', () => {
    it('then the first AUTH_FAILURE_LIMIT get 401, valid requests in between are served, and the address then gets 429 with Retry-After without its key being checked', async () => {
      for (let i = 0; i < LIMIT; i++) {
        expect((await listDevices(gateway, BAD_KEY)).status, `bad key ${i + 1}`).to.equal(401);
        if (i < LIMIT - 1) expect((await listDevices(gateway, tenant.key)).status, `valid key after ${i + 1} bad`).to.equal(200);
      }
      const failures = metric('auth_failures_total', 'http');
      const throttled = metric('auth_throttled_total', 'http');
      const refused = await listDevices(gateway, BAD_KEY);
      expect(refused.status).to.equal(429);
      expect(refused.code).to.equal('too_many_auth_failures');
      expect(refused.retryAfter).to.equal(String(WINDOW_MS / 1000));
      // The valid key of a refused address is refused too, as is a request without a key.
      expect((await listDevices(gateway, tenant.key)).status).to.equal(429);
      expect((await listDevices(gateway, undefined)).status).to.equal(429);
      expect(metric('auth_failures_total', 'http'), 'no key was judged while refused').to.equal(failures);
      expect(metric('auth_throttled_total', 'http') - throttled).to.equal(3);

      clock.advance(WINDOW_MS - 10_000);
      expect((await listDevices(gateway, BAD_KEY)).retryAfter, 'Retry-After counts down').to.equal('10');
    });

    it('then another address is not affected, with a valid key or a wrong one', async () => {
      for (let i = 0; i < LIMIT; i++) await listDevices(gateway, BAD_KEY);
      expect((await listDevices(gateway, tenant.key)).status).to.equal(429);
      expect((await listDevices(gateway, tenant.key, '127.0.0.2')).status).to.equal(200);
      expect((await listDevices(gateway, BAD_KEY, '127.0.0.2')).status).to.equal(401);
    });

    it('then the refusal ends after AUTH_FAILURE_WINDOW and the address starts again from zero', async () => {
      for (let i = 0; i < LIMIT; i++) await listDevices(gateway, BAD_KEY);
      expect((await listDevices(gateway, tenant.key)).status).to.equal(429);
      clock.advance(WINDOW_MS);
      expect((await listDevices(gateway, tenant.key)).status).to.equal(200);
      for (let i = 0; i < LIMIT - 1; i++) expect((await listDevices(gateway, BAD_KEY)).status).to.equal(401);
      expect((await listDevices(gateway, tenant.key)).status).to.equal(200);
    });

    it('then failures spread wider than the window never add up to a refusal', async () => {
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < LIMIT - 1; i++) expect((await listDevices(gateway, BAD_KEY)).status).to.equal(401);
        clock.advance(WINDOW_MS);
      }
      expect((await listDevices(gateway, tenant.key)).status).to.equal(200);
    });
  });

  describe('when one address sends wrong MQTT passwords', () => {
    it('then past the limit its CONNECTs get CONNACK 5 after a delay, valid credentials included, and its HTTP requests 429', async () => {
      const { device, token } = await registerDevice(gateway, tenant);
      const stranger = randomUUID();
      for (let i = 0; i < LIMIT; i++) {
        const error = await clients.refused({ clientId: stranger, username: stranger, password: `wrong-${i}` });
        expect(error.code, `wrong password ${i + 1}`).to.equal(5);
      }
      const failures = metric('auth_failures_total', 'mqtt');
      const throttled = metric('auth_throttled_total', 'mqtt');
      const started = Date.now();
      const refused = await clients.refused({ clientId: stranger, username: stranger, password: 'wrong-again' });
      expect(refused.code).to.equal(5);
      expect(Date.now() - started, 'CONNACK 5 comes after the refusal delay').to.be.at.least(REFUSAL_DELAY_MS - 20);
      const valid = await clients.refused({ clientId: device.id, username: device.id, password: token });
      expect(valid.code, 'valid device credentials from the refused address').to.equal(5);
      expect(metric('auth_failures_total', 'mqtt'), 'no password was judged while refused').to.equal(failures);
      expect(metric('auth_throttled_total', 'mqtt') - throttled).to.equal(2);
      expect((await listDevices(gateway, tenant.key)).status, 'HTTP and MQTT share the count').to.equal(429);

      clock.advance(WINDOW_MS);
      const phone = await clients.device(device.id, token);
      expect(phone.closed).to.equal(false);
    });

    it('then an operator key without devices:monitor is refused but is no guess: it does not count', async () => {
      const { key } = await gateway.services.apiKeys.create(tenant.accountId, ['sms:read']);
      for (let i = 0; i < LIMIT + 2; i++) {
        const error = await clients.refused({ clientId: `operator-${i}`, username: 'ops', password: key });
        expect(error.code).to.equal(5);
      }
      expect((await listDevices(gateway, tenant.key)).status).to.equal(200);
    });
  });
});

describe('AuthThrottle', () => {
  const observe = () => ({ metrics: new Metrics(), logger: createLogger('silent') });

  it('counts an IPv6 client by its /64 and an IPv4-mapped address as the IPv4 address', () => {
    const throttle = new AuthThrottle({ failureLimit: 2, windowMs: 1_000 }, new ManualClock(), observe());
    throttle.failed('2001:db8:1:2::1', 'http');
    throttle.failed('2001:db8:1:2:ffff::9', 'http');
    expect(throttle.refusedFor('2001:db8:1:2::77', 'http')).to.equal(1_000);
    expect(throttle.refusedFor('2001:db8:1:3::1', 'http'), 'another /64').to.equal(0);
    throttle.failed('::ffff:192.0.2.1', 'mqtt');
    throttle.failed('192.0.2.1', 'http');
    expect(throttle.refusedFor('192.0.2.1', 'mqtt')).to.equal(1_000);
  });

  it('takes the key of an address as that address (the broker passes keys)', () => {
    const throttle = new AuthThrottle({ failureLimit: 2, windowMs: 1_000 }, new ManualClock(), observe());
    throttle.failed(clientAddressKey('2001:db8:5:6::1'), 'mqtt');
    throttle.failed('2001:db8:5:6::2', 'http');
    expect(throttle.refusedFor(clientAddressKey('2001:db8:5:6::3'), 'mqtt')).to.equal(1_000);
    expect(throttle.refusedFor(clientAddressKey('2001:db8:9:9::3'), 'mqtt'), 'another /64 is not "unknown"').to.equal(0);
    expect(clientAddressKey('not an address')).to.equal('unknown');
  });

  it('keeps at most its bound of addresses, forgetting the least recently failed', () => {
    const throttle = new AuthThrottle({ failureLimit: 1, windowMs: 1_000 }, new ManualClock(), observe(), 3);
    for (let i = 1; i <= 5; i++) throttle.failed(`198.51.100.${i}`, 'http');
    expect(throttle.size).to.equal(3);
    expect(throttle.refusedFor('198.51.100.1', 'http'), 'forgotten').to.equal(0);
    expect(throttle.refusedFor('198.51.100.5', 'http')).to.equal(1_000);
  });
});
