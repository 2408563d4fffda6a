// spec 4.1 POST /api/ext/v1/sms: rules 1-5, the 170-character limit (spec 7.3, 8), phone
// validation, device_id handling and no_store.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, keyWith, registerDevice, type Tenant } from '../support/tenant.ts';

const PHONE = '+79161234567';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /api/ext/v1/sms', () => {
  let gateway: Gateway;
  let tenant: Tenant;

  before(async () => {
    gateway = await startGateway();
  });
  after(async () => gateway.stop());
  beforeEach(async () => {
    tenant = await createTenant(gateway);
  });

  async function countRows(table: 'sms' | 'sms_status_history'): Promise<number> {
    const row = await gateway.services.db(table).count<{ n: number }[]>({ n: '*' }).first();
    return Number(row?.n);
  }

  describe('when the request is valid', () => {
    it('then it answers 201 with the SMS object of spec 2.2, status pending', async () => {
      const reply = await tenant.api.post('/sms', { phone: PHONE, message: 'Hello' });
      expect(reply.status).to.equal(201);
      expect(reply.body).to.have.all.keys('id', 'device_id', 'phone', 'message', 'status', 'sent_at', 'updated_at');
      expect(reply.body.id).to.match(UUID);
      expect(reply.body).to.include({ phone: PHONE, message: 'Hello', status: 'pending', device_id: null });
      expect(new Date(reply.body.sent_at).toISOString()).to.equal(reply.body.sent_at);
    });

    it('then the SMS is stored and readable (rule 3)', async () => {
      const created = await tenant.api.post('/sms', { phone: PHONE, message: 'stored' });
      const read = await tenant.api.get(`/sms/${created.body.id}`);
      expect(read.status).to.equal(200);
      expect(read.body).to.include({ id: created.body.id, message: 'stored', status: 'pending' });
      expect(read.body.history.map((entry: { status: string }) => entry.status)).to.deep.equal(['pending']);
    });

    it('then a phone number written with spaces and dashes is stored in E.164', async () => {
      const reply = await tenant.api.post('/sms', { phone: '+7 (916) 123-45-67', message: 'x' });
      expect(reply.status).to.equal(201);
      expect(reply.body.phone).to.equal(PHONE);
    });
  });

  describe('when the message is at the 170-character limit', () => {
    const cases: [string, string][] = [
      ['Latin', 'a'.repeat(170)],
      ['Cyrillic', 'ж'.repeat(170)],
      ['emoji with a skin tone', '👍🏽'.repeat(170)],
      ['flags', '🇷🇺'.repeat(170)],
      ['letters with combining accents', 'e\u0301'.repeat(170)],
    ];
    for (const [alphabet, message] of cases) {
      it(`then 170 characters of ${alphabet} are accepted`, async () => {
        const reply = await tenant.api.post('/sms', { phone: PHONE, message });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
        expect(reply.body.message).to.equal(message);
      });
      it(`then 171 characters of ${alphabet} are refused with "message must not exceed 170 characters"`, async () => {
        const reply = await tenant.api.post('/sms', { phone: PHONE, message: message + [...new Intl.Segmenter().segment(message)][0]!.segment });
        expect(reply.status).to.equal(400);
        expect(reply.body.error.code).to.equal('message_too_long');
        expect(reply.body.error.message).to.equal('message must not exceed 170 characters');
      });
    }
  });

  describe('when a field is missing, of the wrong type, or unknown', () => {
    const cases: [string, unknown, string][] = [
      ['phone missing', { message: 'x' }, 'phone'],
      ['message missing', { phone: PHONE }, 'message'],
      ['message empty', { phone: PHONE, message: '' }, 'message'],
      ['phone a number', { phone: 79161234567, message: 'x' }, 'phone'],
      ['message an object', { phone: PHONE, message: { text: 'x' } }, 'message'],
      ['no_store a string', { phone: PHONE, message: 'x', no_store: 'yes' }, 'no_store'],
      ['an unknown field', { phone: PHONE, message: 'x', priority: 1 }, 'priority'],
      ['device_id not a UUID', { phone: PHONE, message: 'x', device_id: 'phone-1' }, 'device_id'],
      ['a JSON array body', [], 'body'],
    ];
    for (const [name, body, field] of cases) {
      it(`then ${name} is a 400 naming ${field}`, async () => {
        const reply = await tenant.api.post('/sms', body);
        expect(reply.status).to.equal(400);
        expect(reply.body.error.code).to.equal('validation_failed');
        expect(reply.body.error.details.map((d: { field: string }) => d.field)).to.include(field);
        expect(reply.body.error.message).to.be.a('string').and.not.empty;
      });
    }
  });

  describe('when the phone number is not a valid number', () => {
    for (const phone of ['12345', '+7916', 'not a phone', '+999123456789', '+7916123456789012']) {
      it(`then "${phone}" is a 400 invalid_phone naming phone`, async () => {
        const reply = await tenant.api.post('/sms', { phone, message: 'x' });
        expect(reply.status).to.equal(400);
        expect(reply.body.error.code).to.equal('invalid_phone');
        expect(reply.body.error.details[0].field).to.equal('phone');
      });
    }
  });

  describe('when device_id names a device', () => {
    it('then an unknown device is a 404', async () => {
      const reply = await tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: '00000000-0000-4000-8000-000000000000' });
      expect(reply.status).to.equal(404);
      expect(reply.body.error.code).to.equal('device_not_found');
    });

    it("then another account's device is a 404, not a 403", async () => {
      const other = await createTenant(gateway);
      const { device } = await registerDevice(gateway, other);
      const reply = await tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: device.id });
      expect(reply.status).to.equal(404);
    });

    it('then a device that may not send is a 409 saying so', async () => {
      const { device } = await registerDevice(gateway, tenant);
      await tenant.api.patch(`/devices/${device.id}/settings`, { can_send_sms: false });
      const reply = await tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: device.id });
      expect(reply.status).to.equal(409);
      expect(reply.body.error.code).to.equal('device_cannot_send');
      expect(reply.body.error.message).to.contain('can_send_sms');
    });

    it('then an offline device is still assigned and the SMS waits for it', async () => {
      const { device } = await registerDevice(gateway, tenant);
      const reply = await tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: device.id });
      expect(reply.status).to.equal(201);
      expect(reply.body).to.include({ device_id: device.id, status: 'pending' });
    });
  });

  describe('when no device_id is given (rule 5)', () => {
    it('then with no device online the SMS is stored unassigned', async () => {
      await registerDevice(gateway, tenant);
      const reply = await tenant.api.post('/sms', { phone: PHONE, message: 'x' });
      expect(reply.status).to.equal(201);
      expect(reply.body.device_id).to.equal(null);
    });

    it('then the least busy online device that may send is chosen, taking turns among equals', async () => {
      const a = (await registerDevice(gateway, tenant, 'a')).device;
      const b = (await registerDevice(gateway, tenant, 'b')).device;
      const muted = (await registerDevice(gateway, tenant, 'muted')).device;
      await registerDevice(gateway, tenant, 'offline');
      await tenant.api.patch(`/devices/${muted.id}/settings`, { can_send_sms: false });
      for (const device of [a, b, muted]) gateway.services.presence.markActive(device.id, tenant.accountId);

      // Load a with two SMS: b must take the next two, then they are equal and take turns.
      await tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: a.id });
      await tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: a.id });
      const chosen: string[] = [];
      for (let i = 0; i < 6; i++) chosen.push((await tenant.api.post('/sms', { phone: PHONE, message: 'x' })).body.device_id);
      expect(chosen.slice(0, 2)).to.deep.equal([b.id, b.id]);
      expect(new Set(chosen.slice(2, 4))).to.deep.equal(new Set([a.id, b.id]));
      expect(chosen).not.to.include(muted.id);
      expect(chosen.filter((id) => id === a.id)).to.have.length(2);
    });
  });

  describe('when no_store is true (rule 4)', () => {
    it('then with no online device it answers 503 and stores nothing', async () => {
      const before = [await countRows('sms'), await countRows('sms_status_history')];
      const reply = await tenant.api.post('/sms', { phone: PHONE, message: 'secret', no_store: true });
      expect(reply.status).to.equal(503);
      expect(reply.body.error.code).to.equal('no_device_available');
      expect([await countRows('sms'), await countRows('sms_status_history')]).to.deep.equal(before);
    });

    it('then with an online device it answers 201 with the SMS object and writes no row', async () => {
      const { device } = await registerDevice(gateway, tenant);
      gateway.services.presence.markActive(device.id, tenant.accountId);
      const before = [await countRows('sms'), await countRows('sms_status_history')];
      const reply = await tenant.api.post('/sms', { phone: PHONE, message: 'secret', no_store: true });
      expect(reply.status).to.equal(201);
      expect(reply.body).to.include({ device_id: device.id, status: 'pending', message: 'secret' });
      expect([await countRows('sms'), await countRows('sms_status_history')]).to.deep.equal(before);
      expect((await tenant.api.get(`/sms/${reply.body.id}`)).status).to.equal(404);
    });
  });

  describe('when the key lacks sms:send', () => {
    it('then it answers 403', async () => {
      const reader = await keyWith(gateway, tenant, ['sms:read']);
      const reply = await reader.post('/sms', { phone: PHONE, message: 'x' });
      expect(reply.status).to.equal(403);
      expect(reply.body.error.code).to.equal('forbidden');
    });
  });
});
