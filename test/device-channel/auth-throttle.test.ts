// Throttling of failed device logins, and its separation from the API's: a phone is never
// refused because of what HTTP clients behind its address did. Device tokens are counted per
// address and per device id, in a channel of their own (MQTT CONNECTs and HTTP uploads alike);
// past AUTH_FAILURE_LIMIT wrong tokens get CONNACK 5 after a delay while valid ones connect, past
// AUTH_FAILURE_HARD_LIMIT nothing from the address is checked. The ManualClock moves the windows.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { TEST_THROTTLE, unknownKey, useThrottledGateway } from '../support/auth-throttle.ts';
import { registerDevice } from '../support/tenant.ts';
import { listDevices } from '../support/raw-http.ts';

const { failureLimit: LIMIT, hardLimit: HARD_LIMIT, windowMs: WINDOW_MS, credentialFailureLimit: CREDENTIAL_LIMIT } = TEST_THROTTLE;
const REFUSAL_DELAY_MS = 200;

describe('authentication throttle of the phones', function () {
  this.timeout(60_000);
  const { fx, clock, metric } = useThrottledGateway({ mqttRefusalDelayMs: REFUSAL_DELAY_MS });

  it('when the phone\'s address has sent 30+ unknown API keys over HTTP, past even the hard limit, then the phone still connects', async () => {
    const { device, token } = await registerDevice(fx.gateway, fx.tenant);
    for (let i = 0; i < HARD_LIMIT; i++) await listDevices(fx.gateway, unknownKey());
    expect((await listDevices(fx.gateway, fx.tenant.key)).status, 'HTTP from the address is blocked').to.equal(429);
    const phone = await fx.clients.device(device.id, token);
    expect(phone.closed).to.equal(false);
  });

  it('when one address sends wrong device tokens past AUTH_FAILURE_LIMIT, then its wrong tokens get CONNACK 5 after a delay while a valid phone from it connects; its HTTP keys are unaffected', async () => {
    const { device, token } = await registerDevice(fx.gateway, fx.tenant);
    for (let i = 0; i < LIMIT; i++) {
      const stranger = randomUUID();
      expect((await fx.clients.refused({ clientId: stranger, username: stranger, password: 'wrong' })).code).to.equal(5);
    }
    const stranger = randomUUID();
    const started = Date.now();
    expect((await fx.clients.refused({ clientId: stranger, username: stranger, password: 'wrong' })).code).to.equal(5);
    expect(Date.now() - started, 'CONNACK 5 comes after the refusal delay').to.be.at.least(REFUSAL_DELAY_MS - 20);
    const phone = await fx.clients.device(device.id, token);
    expect(phone.closed).to.equal(false);
    expect((await listDevices(fx.gateway, fx.tenant.key)).status).to.equal(200);
    expect((await listDevices(fx.gateway, unknownKey())).status, 'a wrong key is a first failure in its channel').to.equal(401);
  });

  it('when one address goes past AUTH_FAILURE_HARD_LIMIT with device tokens, then even a valid phone from it is refused unchecked, until the window ends', async () => {
    const { device, token } = await registerDevice(fx.gateway, fx.tenant);
    // Counted directly: 60 refused CONNECTs with their delays would only make the test slow.
    for (let i = 0; i < HARD_LIMIT; i++) fx.gateway.services.authThrottle.failed({ channel: 'device', address: '127.0.0.1', credential: randomUUID() });
    const failures = metric('auth_failures_total', { channel: 'device' });
    expect((await fx.clients.refused({ clientId: device.id, username: device.id, password: token })).code).to.equal(5);
    expect(metric('auth_failures_total', { channel: 'device' }), 'the valid token was not judged').to.equal(failures);
    expect(metric('auth_throttled_total', { channel: 'device', by: 'address' })).to.be.at.least(1);
    clock.advance(WINDOW_MS);
    expect((await fx.clients.device(device.id, token)).closed).to.equal(false);
  });

  it('when an old installation keeps presenting a device\'s former token, then its failures are throttled but the phone with the current token connects', async () => {
    const { device, token } = await registerDevice(fx.gateway, fx.tenant);
    // From many addresses (counted directly: the test's connections all come from 127.0.0.1).
    for (let i = 0; i < CREDENTIAL_LIMIT + 3; i++) fx.gateway.services.authThrottle.failed({ channel: 'device', address: `198.51.100.${i + 1}`, credential: device.id });
    expect((await fx.clients.refused({ clientId: device.id, username: device.id, password: 'the former token' })).code).to.equal(5);
    expect((await fx.clients.device(device.id, token)).closed).to.equal(false);
  });

  it('when an operator key lacks devices:monitor, then it is refused but is no guess: it does not count', async () => {
    const { key } = await fx.gateway.services.apiKeys.create(fx.tenant.accountId, ['sms:read']);
    const failures = metric('auth_failures_total', { channel: 'api_key' });
    for (let i = 0; i < 3; i++) expect((await fx.clients.refused({ clientId: `operator-${i}`, username: 'ops', password: key })).code).to.equal(5);
    expect(metric('auth_failures_total', { channel: 'api_key' })).to.equal(failures);
  });
});
