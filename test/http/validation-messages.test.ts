// Validation errors in words: they say what is allowed, listing the allowed values, never the
// validator's internals ("must be equal to constant" six times, "must match a schema in
// anyOf"). One bad enum value on each family, and the fields that take one of several shapes.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, registerDevice, type Reply, type Tenant } from '../support/tenant.ts';
import { expectError } from '../support/expectations.ts';
import { WEBHOOK_EVENTS } from '../../src/modules/webhooks/event-contract.ts';

const PHONE = '+79161234567';
const VALIDATOR_WORDS = /must be equal to constant|must match a schema in anyOf|must match pattern|must match exactly one schema/;

/** A 400 validation_failed with exactly one detail, on `field`, whose message is `message`. */
function expectOneDetail(reply: Reply, field: string, message: string): void {
  expectError(reply, 400, 'validation_failed');
  expect(reply.body.error.details, JSON.stringify(reply.body)).to.deep.equal([{ field, in: reply.body.error.details[0].in, message }]);
  expect(reply.body.error.message).to.equal(message);
}

describe('validation errors say what is allowed', () => {
  let gateway: Gateway;
  let tenant: Tenant;
  const seen: Reply[] = [];
  const keep = (reply: Reply) => {
    seen.push(reply);
    return reply;
  };

  before(async function () {
    // Starting a gateway on the embedded database takes longer than a test on a busy machine.
    this.timeout(Math.max(this.timeout(), 30_000));
    gateway = await startGateway();
    tenant = await createTenant(gateway);
  });
  after(async () => gateway.stop());

  describe('when a value is not one of a fixed list', () => {
    it('then GET /sms?status=bogus names every status (Extended API, query string)', async () => {
      const reply = keep(await tenant.api.get('/sms?status=bogus'));
      expectOneDetail(reply, 'status', 'status must be one of: pending, sent, delivered, undelivered, failed_send, failed_delivery');
    });

    it('then a webhook with an unknown event names every event (webhooks, JSON body)', async () => {
      const reply = keep(await tenant.api.post('/webhooks', { url: 'https://example.com/hook', events: ['device.online', 'sms.bogus'] }));
      expectOneDetail(reply, 'events.1', `events.1 must be one of: ${WEBHOOK_EVENTS.join(', ')}`);
    });

    it('then a constant that is not the constant says which value it takes (device settings)', async () => {
      const { device } = await registerDevice(gateway, tenant);
      const reply = keep(await tenant.api.patch(`/devices/${device.id}/settings`, { paused: true }));
      expectOneDetail(reply, 'paused', 'paused must be false');
    });
  });

  describe('when a field takes one of several shapes', () => {
    it('then a legacy to_sim of the wrong type says what it takes: an integer from -2 to 2, or null', async () => {
      const reply = keep(await tenant.root.post('/sms/send', { message: 'x', phone_number: PHONE, to_sim: 'first' }));
      expectOneDetail(reply, 'to_sim', 'to_sim must be an integer from -2 to 2, or null');
    });

    it('then a legacy to_sim of the right type but out of range says the bound it broke', async () => {
      const reply = keep(await tenant.root.post('/sms/send', { message: 'x', phone_number: PHONE, to_sim: 7 }));
      expectOneDetail(reply, 'to_sim', 'to_sim must be at most 2');
    });

    it('then quiet_hours that is neither an object nor null says so, once', async () => {
      const { device } = await registerDevice(gateway, tenant);
      const reply = keep(await tenant.api.patch(`/devices/${device.id}/settings`, { quiet_hours: 'night' }));
      expectOneDetail(reply, 'quiet_hours', 'quiet_hours must be a JSON object, or null');
    });

    it('then quiet_hours with a malformed time names the inner field and the expected form', async () => {
      const { device } = await registerDevice(gateway, tenant);
      const reply = keep(await tenant.api.patch(`/devices/${device.id}/settings`, { quiet_hours: { from: '25:00', to: '07:00', timezone: 'UTC' } }));
      expectError(reply, 400, 'validation_failed');
      expect(reply.body.error.details).to.have.length(1);
      expect(reply.body.error.details[0].field).to.equal('quiet_hours.from');
      expect(reply.body.error.details[0].message).to.contain('HH:MM');
    });

    it('then a limit that is neither a number nor null, and one under the minimum, each get one detail', async () => {
      const { device } = await registerDevice(gateway, tenant);
      const reply = keep(await tenant.api.patch(`/devices/${device.id}/settings`, { limits: { per_minute: 0, per_hour: 'many', per_day: null } }));
      expectError(reply, 400, 'validation_failed');
      expect(reply.body.error.details.map((detail: { field: string; message: string }) => [detail.field, detail.message])).to.deep.equal([
        ['limits.per_minute', 'limits.per_minute must be at least 1'],
        ['limits.per_hour', 'limits.per_hour must be an integer from 1 to 1000000, or null'],
      ]);
    });
  });

  // Mocha runs a describe's own tests before its nested ones: this one waits in a describe of its own.
  describe('when all of the answers above are read again', () => {
    it('then no message carries the validator\'s own words', () => {
      expect(seen.length).to.be.at.least(8);
      for (const reply of seen) {
        const messages = [reply.body.error.message, ...reply.body.error.details.map((detail: { message: string }) => detail.message)];
        for (const message of messages) expect(message).not.to.match(VALIDATOR_WORDS);
      }
    });
  });
});
