// Users' sessions (README, "Users and sessions"; sessions stored server-side, cookie HttpOnly,
// SameSite=Lax, Secure behind HTTPS, CSRF protection on every state change, logout, idle and
// absolute expiry, login failures throttled per account and per address, a session of account A
// sees nothing of account B). Real gateway, real HTTP; the gateway's ManualClock moves time.
import { expect } from 'chai';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../src/common/clock.ts';
import type { Role } from '../../src/modules/users/repository.ts';
import { useGateway, type GatewayFixture } from '../support/use-gateway.ts';
import { scrapeMetrics } from '../support/metrics.ts';
import { useThrottledGateway } from '../support/auth-throttle.ts';
import type { Tenant } from '../support/tenant.ts';
import { TEST_PASSWORD_HASH_COST } from '../support/environment.ts';
import { sessionCountOf } from '../support/test-data.ts';

const PASSWORD = 'a long enough password';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

interface Call {
  body?: unknown;
  cookie?: string;
  csrf?: string;
  /** A local address to send from (every 127.0.0.x is this machine). */
  from?: string;
}

function call(fx: GatewayFixture, method: string, path: string, { body, cookie, csrf, from = '127.0.0.1' }: Call = {}): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: fx.gateway.httpPort,
        method,
        path: `/api/ext/v1${path}`,
        localAddress: from,
        agent: false,
        headers: {
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(cookie ? { cookie } : {}),
          ...(csrf ? { 'x-csrf-token': csrf } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function uniqueEmail(): string {
  return `user-${randomBytes(4).toString('hex')}@Example.COM`;
}

/** A user of the tenant's account; password null: a generated one-time password. */
async function createUser(fx: GatewayFixture, tenant: Tenant, role: Role = 'owner', password: string | null = PASSWORD) {
  const email = uniqueEmail();
  const { user, oneTimePassword } = await fx.gateway.services.users.create({ accountId: tenant.accountId, email, role, ...(password ? { password } : {}) });
  return { email, user, password: password ?? oneTimePassword! };
}

function setCookie(answer: Answer): string {
  const header = answer.headers['set-cookie'];
  expect(header, 'a Set-Cookie header').to.be.an('array').with.length(1);
  return header![0]!;
}

/** Logs in; returns the cookie pair to send back and the session's CSRF token. */
async function login(fx: GatewayFixture, email: string, password: string): Promise<{ cookie: string; csrf: string; answer: Answer }> {
  const answer = await call(fx, 'POST', '/session', { body: { email, password } });
  expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
  return { cookie: setCookie(answer).split(';')[0]!, csrf: answer.body.csrf_token, answer };
}

describe('sessions: logging in with email and password', function () {
  this.timeout(30_000);
  const clock = new ManualClock();
  const fx = useGateway({ clock, config: { sessions: { idleTimeoutMs: 1_800_000, maxAgeMs: 43_200_000, secureCookie: false, passwordHashCost: TEST_PASSWORD_HASH_COST } } });

  it('login answers the user and a CSRF token, and sets an HttpOnly, SameSite=Lax cookie on / (not Secure over http)', async () => {
    const { email, user } = await createUser(fx, fx.tenant);
    const { answer } = await login(fx, email.toUpperCase(), PASSWORD);
    expect(answer.body.user).to.deep.equal({ id: user.id, email: email.toLowerCase(), role: 'owner', is_admin: false, must_change_password: false });
    expect(answer.body.csrf_token).to.be.a('string').with.length.above(30);
    const cookie = setCookie(answer);
    expect(cookie).to.match(/^sms_gateway_session=[A-Za-z0-9_-]{43};/);
    const attributes = cookie.split(';').slice(1).map((part) => part.trim());
    expect(attributes).to.include.members(['Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=43200']);
    expect(attributes).to.not.include('Secure');
  });

  it('what a session sends (an SMS, a data SMS, an MMS, a send to contacts) says it came in from the panel; with a key, from the API', async () => {
    // A phone that can fetch MMS media says so by naming the API it fetches from.
    await fx.connectDevice({ apiUrl: fx.baseUrl });
    const { email } = await createUser(fx, fx.tenant);
    const { cookie, csrf } = await login(fx, email, PASSWORD);
    expect((await fx.tenant.api.post('/contacts', { name: 'Anna', phone: '+79161234570', tags: ['way-in'] })).status).to.equal(201);
    const sent = [
      await call(fx, 'POST', '/sms', { cookie, csrf, body: { phone: '+79161234567', message: 'typed in the panel' } }),
      await call(fx, 'POST', '/sms/data', { cookie, csrf, body: { phone: '+79161234567', data: 'AQI=', port: 5000 } }),
      await call(fx, 'POST', '/mms', { cookie, csrf, body: { phone: '+79161234567', message: 'a picture, one day' } }),
    ];
    const toContacts = await call(fx, 'POST', '/contacts/send', { cookie, csrf, body: { tag: 'way-in', message: 'hello' } });
    for (const answer of [...sent, toContacts]) expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    const ids = [...sent.map((answer) => answer.body.id ?? answer.body.sms_id), toContacts.body.data[0].sms_id];
    for (const id of ids) expect((await fx.tenant.api.get(`/sms/${id}`)).body.way_in, id).to.equal('panel');
    const byKey = await fx.tenant.api.post('/sms/data', { phone: '+79161234567', data: 'AQI=', port: 5000 });
    expect((await fx.tenant.api.get(`/sms/${byKey.body.id}`)).body.way_in).to.equal('api');
  });

  it('a wrong password and an unknown email get the same 401', async () => {
    const { email } = await createUser(fx, fx.tenant);
    const wrong = await call(fx, 'POST', '/session', { body: { email, password: 'not the password' } });
    const unknown = await call(fx, 'POST', '/session', { body: { email: uniqueEmail(), password: PASSWORD } });
    expect(wrong.status).to.equal(401);
    expect(unknown.status).to.equal(401);
    expect(wrong.body).to.deep.equal(unknown.body);
    expect(wrong.headers['set-cookie']).to.equal(undefined);
  });

  it('a malformed login body is a 400', async () => {
    expect((await call(fx, 'POST', '/session', { body: { email: 'x@y' } })).status).to.equal(400);
    expect((await call(fx, 'POST', '/session', { body: { email: 'x@y', password: 'p', extra: 1 } })).status).to.equal(400);
  });

  it('GET /session answers the user with the cookie, and 401 without one or with an unknown one', async () => {
    const { email, user } = await createUser(fx, fx.tenant, 'viewer');
    const { cookie, csrf } = await login(fx, email, PASSWORD);
    const session = await call(fx, 'GET', '/session', { cookie });
    expect(session.status).to.equal(200);
    expect(session.body).to.deep.equal({ user: { id: user.id, email: email.toLowerCase(), role: 'viewer', is_admin: false, must_change_password: false }, csrf_token: csrf });
    expect((await call(fx, 'GET', '/session')).status).to.equal(401);
    expect((await call(fx, 'GET', '/session', { cookie: `sms_gateway_session=${randomBytes(32).toString('base64url')}` })).status).to.equal(401);
  });

  it('an API key cannot use the session endpoints', async () => {
    expect((await fx.tenant.api.get('/session')).status).to.equal(403);
  });

  it('the cookie authenticates the API as the user\'s account: GET /devices lists its devices', async () => {
    const { email } = await createUser(fx, fx.tenant, 'viewer');
    const { device } = await fx.registerDevice('session-phone');
    const { cookie } = await login(fx, email, PASSWORD);
    const devices = await call(fx, 'GET', '/devices', { cookie });
    expect(devices.status).to.equal(200);
    expect(devices.body.data.map((d: { id: string }) => d.id)).to.deep.equal([device.id]);
  });

  it('a state change with the cookie needs the X-CSRF-Token header: 403 csrf_failed without it or with a wrong one, done with it', async () => {
    const { email } = await createUser(fx, fx.tenant, 'owner');
    const { cookie, csrf } = await login(fx, email, PASSWORD);
    const without = await call(fx, 'POST', '/devices', { cookie, body: { name: 'csrf-phone' } });
    expect(without.status).to.equal(403);
    expect(without.body.error.code).to.equal('csrf_failed');
    const wrong = await call(fx, 'POST', '/devices', { cookie, csrf: `${csrf.slice(0, -1)}x`, body: { name: 'csrf-phone' } });
    expect(wrong.body.error.code).to.equal('csrf_failed');
    expect((await fx.tenant.api.get('/devices')).body.data).to.have.length(0);
    const done = await call(fx, 'POST', '/devices', { cookie, csrf, body: { name: 'csrf-phone' } });
    expect(done.status).to.equal(201);
    expect((await fx.tenant.api.get('/devices')).body.data).to.have.length(1);
  });

  it('a viewer reads but cannot send an SMS (403) nor change a device', async () => {
    const { email } = await createUser(fx, fx.tenant, 'viewer');
    const { device } = await fx.registerDevice();
    const { cookie, csrf } = await login(fx, email, PASSWORD);
    const send = await call(fx, 'POST', '/sms', { cookie, csrf, body: { phone: '+79161234567', message: 'viewer' } });
    expect(send.status).to.equal(403);
    expect(send.body.error.code).to.equal('forbidden');
    expect((await call(fx, 'PATCH', `/devices/${device.id}/settings`, { cookie, csrf, body: { name_custom: 'x' } })).status).to.equal(403);
    expect((await call(fx, 'GET', '/sms', { cookie })).status).to.equal(200);
    expect((await fx.tenant.api.get('/sms')).body.data).to.have.length(0);
  });

  it('an owner sends an SMS with the cookie and the CSRF token', async () => {
    const { email } = await createUser(fx, fx.tenant, 'owner');
    const { cookie, csrf } = await login(fx, email, PASSWORD);
    const send = await call(fx, 'POST', '/sms', { cookie, csrf, body: { phone: '+79161234567', message: 'from the panel' } });
    expect(send.status, JSON.stringify(send.body)).to.equal(201);
  });

  it('a one-time password allows only the session endpoints until it is changed', async () => {
    const { email, password } = await createUser(fx, fx.tenant, 'owner', null);
    const { cookie, csrf, answer } = await login(fx, email, password);
    expect(answer.body.user.must_change_password).to.equal(true);
    const blocked = await call(fx, 'GET', '/devices', { cookie });
    expect(blocked.status).to.equal(403);
    expect(blocked.body.error.code).to.equal('password_change_required');
    expect((await call(fx, 'GET', '/session', { cookie })).status).to.equal(200);

    const short = await call(fx, 'POST', '/session/password', { cookie, csrf, body: { current_password: password, new_password: 'too short' } });
    expect(short.status).to.equal(400);
    const wrongCurrent = await call(fx, 'POST', '/session/password', { cookie, csrf, body: { current_password: 'not it at all', new_password: PASSWORD } });
    expect(wrongCurrent.status).to.equal(400);
    const noCsrf = await call(fx, 'POST', '/session/password', { cookie, body: { current_password: password, new_password: PASSWORD } });
    expect(noCsrf.body.error.code).to.equal('csrf_failed');
    expect((await call(fx, 'POST', '/session/password', { cookie, csrf, body: { current_password: password, new_password: PASSWORD } })).status).to.equal(204);

    expect((await call(fx, 'GET', '/devices', { cookie })).status).to.equal(200);
    expect((await call(fx, 'GET', '/session', { cookie })).body.user.must_change_password).to.equal(false);
    expect((await call(fx, 'POST', '/session', { body: { email, password } })).status, 'the one-time password is gone').to.equal(401);
    await login(fx, email, PASSWORD);
  });

  it('logout ends the session and clears the cookie', async () => {
    const { email } = await createUser(fx, fx.tenant);
    const { cookie, csrf } = await login(fx, email, PASSWORD);
    expect((await call(fx, 'DELETE', '/session', { cookie })).body.error.code, 'logout is a state change').to.equal('csrf_failed');
    const out = await call(fx, 'DELETE', '/session', { cookie, csrf });
    expect(out.status).to.equal(204);
    expect(setCookie(out)).to.match(/^sms_gateway_session=;.*Max-Age=0/);
    expect((await call(fx, 'GET', '/session', { cookie })).status).to.equal(401);
    expect((await call(fx, 'GET', '/devices', { cookie })).status).to.equal(401);
  });

  it('a session unused for the idle timeout ends; one in use lives on', async () => {
    const { email } = await createUser(fx, fx.tenant);
    const idle = await login(fx, email, PASSWORD);
    const active = await login(fx, email, PASSWORD);
    for (let minute = 0; minute < 3; minute++) {
      clock.advance(20 * 60_000);
      expect((await call(fx, 'GET', '/session', { cookie: active.cookie })).status, `active after ${(minute + 1) * 20} min`).to.equal(200);
    }
    const ended = await call(fx, 'GET', '/session', { cookie: idle.cookie });
    expect(ended.status, 'idle for 60 min').to.equal(401);
    // The dead cookie is cleared, so the browser stops sending it.
    const cleared = setCookie(ended).split(';').map((part) => part.trim());
    expect(cleared[0]).to.equal('sms_gateway_session=');
    expect(cleared).to.include('Max-Age=0');
  });

  it('a session ends at its absolute age however active it is', async () => {
    const { email } = await createUser(fx, fx.tenant);
    const { cookie } = await login(fx, email, PASSWORD);
    // Used every 25 minutes (under the idle timeout) for 12 hours.
    for (let elapsed = 25; elapsed < 12 * 60; elapsed += 25) {
      clock.advance(25 * 60_000);
      expect((await call(fx, 'GET', '/session', { cookie })).status, `after ${elapsed} min`).to.equal(200);
    }
    clock.advance(25 * 60_000);
    expect((await call(fx, 'GET', '/session', { cookie })).status, 'past 12 hours').to.equal(401);
  });

  it('a login deletes the user\'s sessions that ended unseen', async () => {
    const { email, user } = await createUser(fx, fx.tenant);
    await login(fx, email, PASSWORD);
    await login(fx, email, PASSWORD);
    const sessions = () => sessionCountOf(fx, user.id);
    expect(await sessions()).to.equal(2);
    clock.advance(31 * 60_000);
    await login(fx, email, PASSWORD);
    expect(await sessions()).to.equal(1);
  });

  it('a session of account A sees nothing of account B', async () => {
    const other = await fx.newTenant();
    await fx.gateway.services.devices.register(other.accountId, 'b-phone');
    const sms = await other.api.post('/sms', { phone: '+79161234567', message: 'account B' });
    const { email } = await createUser(fx, fx.tenant, 'owner');
    const { cookie } = await login(fx, email, PASSWORD);
    expect((await call(fx, 'GET', '/devices', { cookie })).body.data).to.have.length(0);
    expect((await call(fx, 'GET', '/sms', { cookie })).body.data).to.have.length(0);
    expect((await call(fx, 'GET', `/sms/${sms.body.id}`, { cookie })).status).to.equal(404);
  });

  it('with an Authorization header the key decides, whatever cookie comes along', async () => {
    const { email } = await createUser(fx, fx.tenant, 'viewer');
    const { cookie } = await login(fx, email, PASSWORD);
    const send = await fx.tenant.api.request('POST', '/sms', { phone: '+79161234567', message: 'with key' }, { cookie });
    expect(send.status).to.equal(201);
  });
});

describe('sessions: a gateway behind HTTPS (PUBLIC_URL https://)', function () {
  this.timeout(30_000);
  const fx = useGateway({ config: { publicUrl: 'https://sms.example.com', sessions: { idleTimeoutMs: 1_800_000, maxAgeMs: 43_200_000, secureCookie: true, passwordHashCost: TEST_PASSWORD_HASH_COST } } });

  it('marks the session cookie Secure, and so the one that clears an ended session', async () => {
    const { email } = await createUser(fx, fx.tenant);
    const answer = await call(fx, 'POST', '/session', { body: { email, password: PASSWORD } });
    expect(setCookie(answer).split(';').map((part) => part.trim())).to.include('Secure');
    const ended = await call(fx, 'GET', '/session', { cookie: 'sms_gateway_session=no-such-session' });
    expect(ended.status).to.equal(401);
    expect(setCookie(ended).split(';').map((part) => part.trim())).to.include.members(['sms_gateway_session=', 'Secure']);
  });
});

describe('sessions: failed logins are throttled per address and per email', function () {
  this.timeout(30_000);
  const LIMIT = 3;
  const HARD_LIMIT = 6;
  const { fx, clock } = useThrottledGateway({ failureLimit: LIMIT, windowMs: 60_000, hardLimit: HARD_LIMIT, credentialFailureLimit: LIMIT, credentialWindowMs: 60_000 });

  it('an address with too many failures gets 429 with Retry-After for its wrong passwords, the right one still logs in; far past the limit even the right one is refused; another address is not', async () => {
    const { email } = await createUser(fx, fx.tenant);
    for (let i = 0; i < LIMIT - 1; i++) {
      expect((await call(fx, 'POST', '/session', { from: '127.0.0.2', body: { email: uniqueEmail(), password: 'wrong password' } })).status).to.equal(401);
    }
    const refused = await call(fx, 'POST', '/session', { from: '127.0.0.2', body: { email: uniqueEmail(), password: 'wrong password' } });
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal('too_many_auth_failures');
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    expect((await call(fx, 'POST', '/session', { from: '127.0.0.2', body: { email, password: PASSWORD } })).status).to.equal(200);
    for (let i = LIMIT; i < HARD_LIMIT; i++) await call(fx, 'POST', '/session', { from: '127.0.0.2', body: { email: uniqueEmail(), password: 'wrong password' } });
    expect((await call(fx, 'POST', '/session', { from: '127.0.0.2', body: { email, password: PASSWORD } })).status).to.equal(429);
    expect((await call(fx, 'POST', '/session', { from: '127.0.0.3', body: { email, password: PASSWORD } })).status).to.equal(200);
    clock.advance(61_000);
    expect((await call(fx, 'POST', '/session', { from: '127.0.0.2', body: { email, password: PASSWORD } })).status).to.equal(200);
  });

  async function throttledByEmail(): Promise<number> {
    return fx.gateway.services.metrics.value('auth_throttled_total', { channel: 'login', by: 'credential' });
  }

  it('an email with too many failures from many addresses gets 429 from any address', async () => {
    const { email } = await createUser(fx, fx.tenant);
    for (let i = 0; i < LIMIT; i++) {
      const from = `127.0.1.${10 + i}`;
      // The failure that reaches the limit locks the login, and is answered so.
      const expected = i < LIMIT - 1 ? 401 : 429;
      expect((await call(fx, 'POST', '/session', { from, body: { email, password: 'wrong password' } })).status).to.equal(expected);
    }
    const refusedBefore = await throttledByEmail();
    const refused = await call(fx, 'POST', '/session', { from: '127.0.1.99', body: { email: email.toUpperCase(), password: PASSWORD } });
    expect(refused.status).to.equal(429);
    expect(refused.headers['retry-after']).to.match(/^\d+$/);
    // Counted where operators look: auth_throttled_total, channel login, by credential.
    expect(await throttledByEmail()).to.equal(refusedBefore + 1);
    const { email: otherEmail } = await createUser(fx, fx.tenant);
    expect((await call(fx, 'POST', '/session', { from: '127.0.1.99', body: { email: otherEmail, password: PASSWORD } })).status).to.equal(200);
    clock.advance(61_000);
  });

  it('a failed login counts once in auth_failures_total', async () => {
    const failures = async () => {
      const text = await (await scrapeMetrics(fx.baseUrl)).text();
      return Number(/^auth_failures_total\{channel="login"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await failures();
    expect((await call(fx, 'POST', '/session', { from: '127.0.2.1', body: { email: uniqueEmail(), password: 'wrong password' } })).status).to.equal(401);
    expect(await failures()).to.equal(before + 1);
  });
});
