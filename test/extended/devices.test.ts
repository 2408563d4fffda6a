// The device endpoints of the Extended API beside PATCH settings (issue 2: "GET /devices (list,
// paged), GET /devices/{id}", device registration and deletion), with the device object of
// spec 2.1, is_online per spec 1.6, the devices:read / devices:write permissions and tenancy.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { PERMISSIONS, type Permission } from '../../src/modules/api-keys/permissions.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, keyWith, registerDevice, type Tenant } from '../support/tenant.ts';
import { detailFields, expectDevice, expectError, MALFORMED_IDS, UNKNOWN_ID, UUID } from '../support/expectations.ts';

const PHONE = '+79161234567';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const allBut = (permission: Permission) => PERMISSIONS.filter((p) => p !== permission);

describe('/api/ext/v1/devices', () => {
  let gateway: Gateway;
  let tenant: Tenant;

  before(async () => {
    gateway = await startGateway();
  });
  after(async () => gateway.stop());
  beforeEach(async () => {
    tenant = await createTenant(gateway);
  });

  /** Registers devices named d0, d1, ... stamped so that the last one is the newest. */
  async function devicesInOrder(count: number, owner: Tenant = tenant): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { device } = await registerDevice(gateway, owner, `d${i}`);
      await gateway.services.db('devices').where({ id: device.id }).update({ created_at: new Date(T0 + i * 60_000) });
      ids.push(device.id);
    }
    return ids;
  }

  async function walk(limit: number, owner: Tenant = tenant): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pages = 1; ; pages++) {
      const reply: { status: number; body: any } = await owner.api.get(
        `/devices?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      ids.push(...reply.body.data.map((device: { id: string }) => device.id));
      cursor = reply.body.next_cursor;
      if (cursor === null) return ids;
      expect(pages, 'the walk ends').to.be.below(100);
    }
  }

  describe('GET /devices', () => {
    describe('when the account has devices', () => {
      it('then it answers {data, next_cursor} with device objects of spec 2.1, newest first', async () => {
        const ids = await devicesInOrder(3);
        const reply = await tenant.api.get('/devices');
        expect(reply.status).to.equal(200);
        expect(reply.body).to.have.all.keys('data', 'next_cursor');
        expect(reply.body.next_cursor).to.equal(null);
        for (const device of reply.body.data) expectDevice(device);
        expect(reply.body.data.map((device: { id: string }) => device.id)).to.deep.equal([...ids].reverse());
        expect(reply.body.data[2]).to.include({ name: 'd0', name_custom: 'd0' });
      });

      it('then an account without devices gets an empty last page', async () => {
        expect((await tenant.api.get('/devices')).body).to.deep.equal({ data: [], next_cursor: null });
      });

      it('then the settings shown are the ones last set', async () => {
        const [id] = await devicesInOrder(1);
        await tenant.api.patch(`/devices/${id}/settings`, { selected_sim: 1, name_custom: 'Shop' });
        const reply = await tenant.api.get('/devices');
        expect(reply.body.data[0]).to.include({ id, selected_sim: 1, name_custom: 'Shop' });
      });
    });

    describe('when paged with limit and cursor', () => {
      it('then without limit a page holds 50 devices', async () => {
        for (let i = 0; i < 51; i++) await registerDevice(gateway, tenant, `d${i}`);
        const first = await tenant.api.get('/devices');
        expect(first.body.data).to.have.length(50);
        expect(first.body.next_cursor).to.be.a('string').and.not.empty;
        const second = await tenant.api.get(`/devices?cursor=${encodeURIComponent(first.body.next_cursor)}`);
        expect(second.body.data).to.have.length(1);
        expect(second.body.next_cursor).to.equal(null);
      });

      it('then following next_cursor visits every device once, in order', async () => {
        const ids = await devicesInOrder(5);
        // Three devices created in the same instant: the id decides their order, and none is lost.
        await gateway.services.db('devices').whereIn('id', [ids[1]!, ids[2]!]).update({ created_at: new Date(T0) });
        const tied = [ids[0]!, ids[1]!, ids[2]!].sort((a, b) => (a < b ? 1 : -1));
        const expected = [ids[4], ids[3], ...tied];
        for (const limit of [1, 2, 3, 5, 100]) {
          expect(await walk(limit), `limit ${limit}`).to.deep.equal(expected);
        }
      });

      for (const limit of ['0', '101', '-5', 'x']) {
        it(`then limit "${limit}" is a 400 naming limit`, async () => {
          const reply = await tenant.api.get(`/devices?limit=${limit}`);
          expectError(reply, 400, 'validation_failed');
          expect(detailFields(reply)).to.include('limit');
        });
      }

      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      for (const [name, cursor] of [
        ['plain text', 'garbage'],
        ['base64 of a number', encode(42)],
        ['an id that is 36 dashes', encode(['2026-03-01T10:00:00.000Z', '-'.repeat(36)])],
      ]) {
        it(`then a cursor of ${name} is a 400 naming cursor`, async () => {
          await registerDevice(gateway, tenant);
          const reply = await tenant.api.get(`/devices?cursor=${encodeURIComponent(cursor!)}`);
          expectError(reply, 400, 'validation_failed');
          expect(detailFields(reply)).to.include('cursor');
        });
      }

      it('then an unknown query parameter is a 400 naming it', async () => {
        const reply = await tenant.api.get('/devices?online=true');
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include('online');
      });
    });

    describe('when another account has devices', () => {
      it('then they are never listed', async () => {
        const other = await createTenant(gateway);
        const theirs = await devicesInOrder(3, other);
        const mine = await devicesInOrder(2);
        expect(await walk(1)).to.have.members(mine);
        expect(await walk(1, other)).to.have.members(theirs);
      });
    });

    describe('when a device was deleted', () => {
      it('then it is no longer listed', async () => {
        const [kept, gone] = await devicesInOrder(2);
        expect((await tenant.api.delete(`/devices/${gone}`)).status).to.equal(204);
        expect(await walk(1)).to.deep.equal([kept]);
      });
    });

    describe('when the key lacks devices:read', () => {
      it('then it answers 403 forbidden', async () => {
        const key = await keyWith(gateway, tenant, allBut('devices:read'));
        expectError(await key.get('/devices'), 403, 'forbidden');
      });
    });
  });

  describe('GET /devices/{id}', () => {
    it('when the device is the account\'s, then it answers 200 with the device object of spec 2.1', async () => {
      const { device } = await registerDevice(gateway, tenant, 'Galaxy');
      const reply = await tenant.api.get(`/devices/${device.id}`);
      expect(reply.status).to.equal(200);
      expectDevice(reply.body);
      expect(reply.body).to.include({ id: device.id, name: 'Galaxy', name_custom: 'Galaxy', is_online: false });
      expect(reply.body.created_at).to.equal(device.created_at.toISOString());
    });

    it('when the device does not exist, then it answers 404 device_not_found', async () => {
      expectError(await tenant.api.get(`/devices/${UNKNOWN_ID}`), 404, 'device_not_found');
    });

    it("when the device is another account's, then it answers 404 device_not_found", async () => {
      const other = await createTenant(gateway);
      const { device } = await registerDevice(gateway, other);
      expectError(await tenant.api.get(`/devices/${device.id}`), 404, 'device_not_found');
      expect((await other.api.get(`/devices/${device.id}`)).status).to.equal(200);
    });

    for (const id of MALFORMED_IDS) {
      it(`when the id is "${id}", then it answers 400 invalid_id`, async () => {
        const reply = await tenant.api.get(`/devices/${encodeURIComponent(id)}`);
        expectError(reply, 400, 'invalid_id');
        expect(detailFields(reply)).to.include('id');
      });
    }

    it('when the key lacks devices:read, then it answers 403 forbidden', async () => {
      const { device } = await registerDevice(gateway, tenant);
      const key = await keyWith(gateway, tenant, allBut('devices:read'));
      expectError(await key.get(`/devices/${device.id}`), 403, 'forbidden');
    });
  });

  describe('is_online (spec 1.6)', () => {
    it('when the device becomes active, then it is online; when it disconnects, then it is offline', async () => {
      const { device } = await registerDevice(gateway, tenant);
      const onlineNow = async () => {
        const one = await tenant.api.get(`/devices/${device.id}`);
        const listed = (await tenant.api.get('/devices')).body.data.find((d: { id: string }) => d.id === device.id);
        expect(listed.is_online, 'the list agrees').to.equal(one.body.is_online);
        return one.body.is_online;
      };
      expect(await onlineNow()).to.equal(false);
      gateway.services.presence.markActive(device.id, tenant.accountId);
      expect(await onlineNow()).to.equal(true);
      gateway.services.presence.markDisconnected(device.id);
      expect(await onlineNow()).to.equal(false);
    });

    it('when the last activity is more than 5 minutes old, then the device is offline', async () => {
      const { device: stale } = await registerDevice(gateway, tenant, 'stale');
      const { device: recent } = await registerDevice(gateway, tenant, 'recent');
      gateway.services.presence.markActive(stale.id, tenant.accountId, Date.now() - 5 * 60_000 - 1_000);
      gateway.services.presence.markActive(recent.id, tenant.accountId, Date.now() - 4 * 60_000);
      expect((await tenant.api.get(`/devices/${stale.id}`)).body.is_online).to.equal(false);
      expect((await tenant.api.get(`/devices/${recent.id}`)).body.is_online).to.equal(true);
    });
  });

  describe('POST /devices', () => {
    it('when the name is valid, then it answers 201 with the device and its credentials', async () => {
      const reply = await tenant.api.post('/devices', { name: 'Warehouse phone' });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body).to.have.all.keys('device', 'credentials');
      expectDevice(reply.body.device);
      expect(reply.body.device).to.include({ name: 'Warehouse phone', name_custom: 'Warehouse phone', is_online: false, can_send_sms: true });
      expect(reply.body.credentials).to.have.all.keys('client_id', 'username', 'password');
      expect(reply.body.credentials.client_id).to.equal(reply.body.device.id);
      expect(reply.body.credentials.username).to.equal(reply.body.device.id);
      expect(reply.body.credentials.password).to.be.a('string').with.length.of.at.least(32);

      const read = await tenant.api.get(`/devices/${reply.body.device.id}`);
      expect(read.status).to.equal(200);
      expect(read.body).to.deep.equal(reply.body.device);
    });

    it('when a device is registered, then its password is not stored in clear', async () => {
      const reply = await tenant.api.post('/devices', { name: 'x' });
      const row = await gateway.services.db('devices').where({ id: reply.body.device.id }).first();
      expect(JSON.stringify(row)).not.to.contain(reply.body.credentials.password);
    });

    it('when two devices are registered, then they get different ids and passwords', async () => {
      const a = (await tenant.api.post('/devices', { name: 'same' })).body;
      const b = (await tenant.api.post('/devices', { name: 'same' })).body;
      expect(a.device.id).to.match(UUID).and.not.equal(b.device.id);
      expect(a.credentials.password).not.to.equal(b.credentials.password);
    });

    for (const [name, value] of [
      ['100 Latin characters', 'a'.repeat(100)],
      ['100 emoji with a skin tone', '👍🏽'.repeat(100)],
    ]) {
      it(`when the name is ${name}, then it is accepted`, async () => {
        const reply = await tenant.api.post('/devices', { name: value });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
        expect(reply.body.device.name).to.equal(value);
      });
    }

    const refused: [string, unknown][] = [
      ['missing', {}],
      ['empty', { name: '' }],
      ['only spaces', { name: '   ' }],
      ['101 characters', { name: 'a'.repeat(101) }],
      ['a number', { name: 42 }],
      ['null', { name: null }],
      ['beside an unknown field', { name: 'x', type: 'ios' }],
    ];
    for (const [name, body] of refused) {
      it(`when the name is ${name}, then it answers 400 and registers nothing`, async () => {
        const reply = await tenant.api.post('/devices', body);
        expectError(reply, 400, 'validation_failed');
        expect(reply.body.error.message).to.match(/name|type/);
        expect((await tenant.api.get('/devices')).body.data).to.deep.equal([]);
      });
    }

    it('when the field is unknown, then the 400 names it', async () => {
      const reply = await tenant.api.post('/devices', { name: 'x', type: 'ios' });
      expect(detailFields(reply)).to.include('type');
    });

    it('when the key lacks devices:write, then it answers 403 forbidden and registers nothing', async () => {
      const key = await keyWith(gateway, tenant, allBut('devices:write'));
      expectError(await key.post('/devices', { name: 'x' }), 403, 'forbidden');
      expect((await tenant.api.get('/devices')).body.data).to.deep.equal([]);
    });
  });

  describe('DELETE /devices/{id}', () => {
    it('when the device is the account\'s, then it answers 204 with no body, and afterwards the device is gone', async () => {
      const { device } = await registerDevice(gateway, tenant);
      const reply = await tenant.api.delete(`/devices/${device.id}`);
      expect(reply.status).to.equal(204);
      expect(reply.body).to.equal(undefined);
      expectError(await tenant.api.get(`/devices/${device.id}`), 404, 'device_not_found');
      expectError(await tenant.api.patch(`/devices/${device.id}/settings`, { record_calls: true }), 404, 'device_not_found');
      expectError(await tenant.api.delete(`/devices/${device.id}`), 404, 'device_not_found');
      expectError(await tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: device.id }), 404, 'device_not_found');
    });

    it('when the device was online, then it is no longer chosen for new SMS', async () => {
      const { device } = await registerDevice(gateway, tenant);
      gateway.services.presence.markActive(device.id, tenant.accountId);
      expect((await tenant.api.post('/sms', { phone: PHONE, message: 'before' })).body.device_id).to.equal(device.id);
      await tenant.api.delete(`/devices/${device.id}`);
      expect(gateway.services.presence.isOnline(device.id)).to.equal(false);
      expect((await tenant.api.post('/sms', { phone: PHONE, message: 'after' })).body.device_id).to.equal(null);
    });

    it('when it had a pending SMS the client did not name, then that SMS goes back to the pool, still pending', async () => {
      const { device } = await registerDevice(gateway, tenant);
      gateway.services.presence.markActive(device.id, tenant.accountId);
      const sms = (await tenant.api.post('/sms', { phone: PHONE, message: 'to anyone' })).body;
      expect(sms.device_id, 'assigned to the only online device').to.equal(device.id);

      expect((await tenant.api.delete(`/devices/${device.id}`)).status).to.equal(204);
      const after = await tenant.api.get(`/sms/${sms.id}`);
      expect(after.body).to.include({ device_id: null, status: 'pending' });
      const last = after.body.history[after.body.history.length - 1];
      expect(last).to.include({ status: 'pending', source: 'system' });
      expect(last.reason).to.match(/delet/i);
    });

    it('when it had a pending SMS the client named it for, then that SMS fails (failed_send)', async () => {
      const { device } = await registerDevice(gateway, tenant);
      const sms = (await tenant.api.post('/sms', { phone: PHONE, message: 'only via this one', device_id: device.id })).body;

      expect((await tenant.api.delete(`/devices/${device.id}`)).status).to.equal(204);
      const after = await tenant.api.get(`/sms/${sms.id}`);
      expect(after.body.status).to.equal('failed_send');
      const last = after.body.history[after.body.history.length - 1];
      expect(last).to.include({ status: 'failed_send', source: 'system' });
      expect(last.reason).to.match(/delet/i);
    });

    it('when it had SMS already sent, then they keep their status, device and history', async () => {
      const { device } = await registerDevice(gateway, tenant);
      const sms = (await tenant.api.post('/sms', { phone: PHONE, message: 'done', device_id: device.id })).body;
      await gateway.services.db('sms').where({ id: sms.id }).update({ status: 'sent' });
      const before = await tenant.api.get(`/sms/${sms.id}`);

      await tenant.api.delete(`/devices/${device.id}`);
      const after = await tenant.api.get(`/sms/${sms.id}`);
      expect(after.body).to.include({ status: 'sent', device_id: device.id });
      expect(after.body.history).to.deep.equal(before.body.history);
    });

    it("when it had the other account's SMS nowhere near it, then their SMS are untouched", async () => {
      const other = await createTenant(gateway);
      const theirDevice = (await registerDevice(gateway, other)).device;
      const theirSms = (await other.api.post('/sms', { phone: PHONE, message: 'x', device_id: theirDevice.id })).body;
      const { device } = await registerDevice(gateway, tenant);
      await tenant.api.delete(`/devices/${device.id}`);
      expect((await other.api.get(`/sms/${theirSms.id}`)).body).to.include({ status: 'pending', device_id: theirDevice.id });
    });

    it('when the device does not exist, then it answers 404 device_not_found', async () => {
      expectError(await tenant.api.delete(`/devices/${UNKNOWN_ID}`), 404, 'device_not_found');
    });

    it("when the device is another account's, then it answers 404 and the device stays", async () => {
      const other = await createTenant(gateway);
      const { device } = await registerDevice(gateway, other);
      expectError(await tenant.api.delete(`/devices/${device.id}`), 404, 'device_not_found');
      expect((await other.api.get(`/devices/${device.id}`)).status).to.equal(200);
    });

    for (const id of MALFORMED_IDS) {
      it(`when the id is "${id}", then it answers 400 invalid_id`, async () => {
        expectError(await tenant.api.delete(`/devices/${encodeURIComponent(id)}`), 400, 'invalid_id');
      });
    }

    it('when the key lacks devices:write, then it answers 403 and the device stays', async () => {
      const { device } = await registerDevice(gateway, tenant);
      const key = await keyWith(gateway, tenant, allBut('devices:write'));
      expectError(await key.delete(`/devices/${device.id}`), 403, 'forbidden');
      expect((await tenant.api.get(`/devices/${device.id}`)).status).to.equal(200);
    });
  });
});
