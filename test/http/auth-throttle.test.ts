// Throttling of failed authentication over HTTP: API keys and panel logins. Failures are counted
// per client address and per credential, in channels of their own. Past AUTH_FAILURE_LIMIT an
// address's wrong credentials are answered 429 while its valid ones still work; past
// AUTH_FAILURE_HARD_LIMIT nothing it sends is checked. A login (email) with too many failures
// from anywhere is locked, right password included; a key prefix is only throttled. The
// gateway's ManualClock moves the windows, so no test waits for one.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../src/common/clock.ts';
import { Metrics } from '../../src/common/metrics.ts';
import { createLogger } from '../../src/common/logger.ts';
import { AuthThrottle } from '../../src/common/auth-throttle.ts';
import { clientAddressKey } from '../../src/common/client-address.ts';
import { TEST_THROTTLE, unknownKey, useThrottledGateway } from '../support/auth-throttle.ts';
import { listDevices, logIn } from '../support/raw-http.ts';
import { uniqueEmail, USER_PASSWORD } from '../support/session-client.ts';

const { failureLimit: LIMIT, hardLimit: HARD_LIMIT, windowMs: WINDOW_MS, credentialFailureLimit: CREDENTIAL_LIMIT, credentialWindowMs: CREDENTIAL_WINDOW_MS } = TEST_THROTTLE;

describe('authentication throttle over HTTP', function () {
  this.timeout(60_000);
  // Every throttle, block and lock has ended and every count drained before the next test.
  const { fx, clock, metric } = useThrottledGateway();

  async function failKeys(count: number, from = '127.0.0.1'): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await listDevices(fx.gateway, unknownKey(), from)).status);
    return statuses;
  }

  describe('when one address sends more unknown API keys than AUTH_FAILURE_LIMIT', () => {
    it('then its first failures get 401, the following 429 with Retry-After, and a valid key from it is still served', async () => {
      const statuses = await failKeys(LIMIT + 5);
      expect(statuses.slice(0, LIMIT - 1)).to.deep.equal(Array(LIMIT - 1).fill(401));
      expect(statuses.slice(LIMIT)).to.deep.equal(Array(5).fill(429));
      const wrong = await listDevices(fx.gateway, unknownKey());
      expect(wrong.status).to.equal(429);
      expect(wrong.code).to.equal('too_many_auth_failures');
      expect(wrong.retryAfter).to.equal(String(WINDOW_MS / 1000));
      // The colleague behind the same address, with a valid key: served.
      expect((await listDevices(fx.gateway, fx.tenant.key)).status).to.equal(200);
      // No key at all is no failure and no guess: the usual 401.
      expect((await listDevices(fx.gateway, undefined)).status).to.equal(401);
    });

    it('then the panel login and another address are not affected', async () => {
      await failKeys(LIMIT + 1);
      const email = uniqueEmail();
      await fx.gateway.services.users.create({ accountId: fx.tenant.accountId, email, role: 'owner', password: USER_PASSWORD, isAdmin: false });
      expect((await logIn(fx.gateway, email, USER_PASSWORD)).status, 'login from the same address').to.equal(200);
      expect((await listDevices(fx.gateway, unknownKey(), '127.0.0.2')).status, 'another address').to.equal(401);
    });

    it('then the throttle ends after AUTH_FAILURE_WINDOW and failures are answered 401 again', async () => {
      await failKeys(LIMIT + 1);
      expect((await listDevices(fx.gateway, unknownKey())).status).to.equal(429);
      clock.advance(WINDOW_MS);
      expect((await listDevices(fx.gateway, unknownKey())).status).to.equal(401);
    });

    it('then failures spread wider than the window never add up to a throttle', async () => {
      for (let round = 0; round < 3; round++) {
        expect(await failKeys(LIMIT - 1)).to.deep.equal(Array(LIMIT - 1).fill(401));
        clock.advance(WINDOW_MS);
      }
    });
  });

  describe('when one address goes past AUTH_FAILURE_HARD_LIMIT', () => {
    it('then everything it sends is refused 429 unchecked, valid keys included, until the window ends', async () => {
      await failKeys(HARD_LIMIT);
      const failures = metric('auth_failures_total', { channel: 'api_key' });
      const refused = await listDevices(fx.gateway, fx.tenant.key);
      expect(refused.status).to.equal(429);
      expect(refused.retryAfter).to.equal(String(WINDOW_MS / 1000));
      expect((await listDevices(fx.gateway, unknownKey())).status).to.equal(429);
      expect(metric('auth_failures_total', { channel: 'api_key' }), 'no key was judged while blocked').to.equal(failures);
      expect(metric('auth_throttled_total', { channel: 'api_key', by: 'address' })).to.be.at.least(2);
      clock.advance(WINDOW_MS - 10_000);
      expect((await listDevices(fx.gateway, fx.tenant.key)).retryAfter, 'Retry-After counts down').to.equal('10');
      clock.advance(10_000);
      expect((await listDevices(fx.gateway, fx.tenant.key)).status).to.equal(200);
      expect((await listDevices(fx.gateway, unknownKey())).status, 'started again from zero').to.equal(401);
    });
  });

  describe('when one key prefix gets wrong secrets from many addresses', () => {
    it('then past AUTH_CREDENTIAL_FAILURE_LIMIT its wrong secrets get 429 from any address, and the key itself still works', async () => {
      const prefix = fx.tenant.key.slice(0, 'sgw_0123456789'.length);
      const wrongSecret = () => `${prefix}_${randomBytes(32).toString('base64url')}`;
      for (let i = 0; i < CREDENTIAL_LIMIT; i++) expect((await listDevices(fx.gateway, wrongSecret(), `127.0.3.${i + 1}`)).status).to.be.oneOf([401, 429]);
      expect((await listDevices(fx.gateway, wrongSecret(), '127.0.3.99')).status).to.equal(429);
      expect((await listDevices(fx.gateway, fx.tenant.key, '127.0.3.99')).status).to.equal(200);
    });
  });

  describe('when one address sends wrong panel passwords', () => {
    async function user(): Promise<string> {
      const email = uniqueEmail();
      await fx.gateway.services.users.create({ accountId: fx.tenant.accountId, email, role: 'owner', password: USER_PASSWORD, isAdmin: false });
      return email;
    }

    it('then past AUTH_FAILURE_LIMIT (each for another email) its failures get 429, and a right password from it still logs in', async () => {
      const email = await user();
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT + 2; i++) statuses.push((await logIn(fx.gateway, uniqueEmail(), 'wrong password', '127.0.4.1')).status);
      expect(statuses.slice(0, LIMIT - 1)).to.deep.equal(Array(LIMIT - 1).fill(401));
      expect(statuses.at(-1)).to.equal(429);
      expect((await logIn(fx.gateway, email, USER_PASSWORD, '127.0.4.1')).status).to.equal(200);
      // API keys are another channel: the same address's keys are unaffected.
      expect((await listDevices(fx.gateway, unknownKey(), '127.0.4.1')).status).to.equal(401);
    });

    it('then past AUTH_FAILURE_HARD_LIMIT even the right password is refused, unchecked', async () => {
      const email = await user();
      for (let i = 0; i < HARD_LIMIT; i++) await logIn(fx.gateway, uniqueEmail(), 'wrong password', '127.0.4.2');
      expect((await logIn(fx.gateway, email, USER_PASSWORD, '127.0.4.2')).status).to.equal(429);
      expect((await logIn(fx.gateway, email, USER_PASSWORD, '127.0.4.3')).status, 'from elsewhere').to.equal(200);
    });
  });

  describe('when one login gets wrong passwords from many addresses', () => {
    it(`then after AUTH_CREDENTIAL_FAILURE_LIMIT (${CREDENTIAL_LIMIT}) it is locked from every address, right password included, and other users are not; the lock ends after its window`, async () => {
      const email = uniqueEmail();
      await fx.gateway.services.users.create({ accountId: fx.tenant.accountId, email, role: 'owner', password: USER_PASSWORD, isAdmin: false });
      for (let i = 0; i < CREDENTIAL_LIMIT; i++) expect((await logIn(fx.gateway, email, `guess ${i}`, `127.0.5.${i + 1}`)).status).to.be.oneOf([401, 429]);
      const locked = await logIn(fx.gateway, email.toUpperCase(), USER_PASSWORD, '127.0.5.99');
      expect(locked.status).to.equal(429);
      expect(Number(locked.retryAfter)).to.be.within(CREDENTIAL_WINDOW_MS / 1000 - 5, CREDENTIAL_WINDOW_MS / 1000);
      expect(metric('auth_throttled_total', { channel: 'login', by: 'credential' })).to.be.at.least(1);
      const other = uniqueEmail();
      await fx.gateway.services.users.create({ accountId: fx.tenant.accountId, email: other, role: 'owner', password: USER_PASSWORD, isAdmin: false });
      expect((await logIn(fx.gateway, other, USER_PASSWORD, '127.0.5.99')).status).to.equal(200);
      clock.advance(CREDENTIAL_WINDOW_MS);
      expect((await logIn(fx.gateway, email, USER_PASSWORD, '127.0.5.99')).status).to.equal(200);
    });
  });
});

describe('AuthThrottle', () => {
  const observe = () => ({ metrics: new Metrics(), logger: createLogger('silent') });
  const limits = { failureLimit: 2, windowMs: 1_000, hardLimit: 4 };

  it('counts an IPv6 client by its /64 and an IPv4-mapped address as the IPv4 address', () => {
    const throttle = new AuthThrottle(limits, new ManualClock(), observe());
    for (let i = 1; i <= 4; i++) throttle.failed({ channel: 'api_key', address: `2001:db8:1:2::${i}` });
    expect(throttle.refusedFor({ channel: 'api_key', address: '2001:db8:1:2::77' })).to.equal(1_000);
    expect(throttle.refusedFor({ channel: 'api_key', address: '2001:db8:1:3::1' }), 'another /64').to.equal(0);
    for (let i = 0; i < 2; i++) throttle.failed({ channel: 'device', address: '::ffff:192.0.2.1' });
    for (let i = 0; i < 2; i++) throttle.failed({ channel: 'device', address: '192.0.2.1' });
    expect(throttle.refusedFor({ channel: 'device', address: '192.0.2.1' })).to.equal(1_000);
  });

  it('keeps the channels apart: failures in one never throttle another', () => {
    const throttle = new AuthThrottle(limits, new ManualClock(), observe());
    for (let i = 0; i < 10; i++) throttle.failed({ channel: 'api_key', address: '192.0.2.7' });
    expect(throttle.refusedFor({ channel: 'api_key', address: '192.0.2.7' })).to.be.above(0);
    expect(throttle.refusedFor({ channel: 'device', address: '192.0.2.7' })).to.equal(0);
    expect(throttle.refusedFor({ channel: 'login', address: '192.0.2.7' })).to.equal(0);
    expect(throttle.failed({ channel: 'device', address: '192.0.2.7' }), 'a first device failure is a plain one').to.equal(0);
  });

  it('takes the key of an address as that address (the broker passes keys)', () => {
    const throttle = new AuthThrottle(limits, new ManualClock(), observe());
    for (let i = 0; i < 4; i++) throttle.failed({ channel: 'device', address: clientAddressKey('2001:db8:5:6::1') });
    expect(throttle.refusedFor({ channel: 'device', address: clientAddressKey('2001:db8:5:6::3') })).to.equal(1_000);
    expect(throttle.refusedFor({ channel: 'device', address: clientAddressKey('2001:db8:9:9::3') }), 'another /64 is not "unknown"').to.equal(0);
    expect(clientAddressKey('not an address')).to.equal('unknown');
  });

  it('keeps at most its bound of addresses, forgetting the least recently failed one that is not blocked', () => {
    const throttle = new AuthThrottle({ failureLimit: 1, windowMs: 1_000, hardLimit: 1 }, new ManualClock(), observe(), 3);
    for (let i = 1; i <= 5; i++) throttle.failed({ channel: 'api_key', address: `198.51.100.${i}` });
    expect(throttle.size('api_key')).to.equal(3);
    // All blocked: the oldest goes anyway, the table stays bounded.
    expect(throttle.refusedFor({ channel: 'api_key', address: '198.51.100.1' }), 'forgotten').to.equal(0);
    expect(throttle.refusedFor({ channel: 'api_key', address: '198.51.100.5' })).to.equal(1_000);
  });

  it('passes over a blocked address when it forgets one, so that new addresses cannot free it', () => {
    const clock = new ManualClock();
    const throttle = new AuthThrottle({ failureLimit: 2, windowMs: 1_000, hardLimit: 2 }, clock, observe(), 3);
    throttle.failed({ channel: 'api_key', address: '198.51.100.1' });
    throttle.failed({ channel: 'api_key', address: '198.51.100.1' });
    for (let i = 2; i <= 20; i++) throttle.failed({ channel: 'api_key', address: `198.51.100.${i}` });
    expect(throttle.refusedFor({ channel: 'api_key', address: '198.51.100.1' })).to.equal(1_000);
  });
});
