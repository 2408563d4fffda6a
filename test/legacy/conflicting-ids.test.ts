// A legacy request that names its record twice: conflicting ids (`DELETE /sms/del?id=A` with
// body `{"id": "B"}`; `device_id` and `id` differing) are 400, not a silent pick. Each
// conflicting request is refused naming both fields, and nothing changes; the same id given
// twice (in any letter case) still works.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, registerDevice, type Reply, type Tenant } from '../support/tenant.ts';
import { expectError } from '../support/expectations.ts';
import { deviceRow, legacyGet, legacySend } from '../support/legacy.ts';

/** A 400 validation_failed whose details name exactly these fields, each where it was. */
function expectConflict(reply: Reply, places: [field: string, where: 'query' | 'body'][]): void {
  expectError(reply, 400, 'validation_failed');
  const details = reply.body.error.details as { field: string; in: string; message: string }[];
  expect(details.map((detail) => [detail.field, detail.in])).to.deep.equal(places);
  expect(reply.body.error.message).to.contain('different ids');
}

describe('legacy requests that name an id twice', () => {
  let gateway: Gateway;
  let tenant: Tenant;

  before(async function () {
    // Starting a gateway on the embedded database takes longer than a test on a busy machine.
    this.timeout(Math.max(this.timeout(), 30_000));
    gateway = await startGateway();
  });
  after(async () => gateway.stop());
  beforeEach(async () => {
    tenant = await createTenant(gateway);
  });

  describe('when DELETE /sms/del has one id in the query string and another in the body', () => {
    it('then it is a 400 naming both, and neither SMS is deleted', async () => {
      const a = await legacySend(tenant, { message: 'a' });
      const b = await legacySend(tenant, { message: 'b' });
      expectConflict(await tenant.root.delete(`/sms/del?id=${a}`, { id: b }), [
        ['id', 'query'],
        ['id', 'body'],
      ]);
      expect((await legacyGet(tenant, a)).message).to.equal('a');
      expect((await legacyGet(tenant, b)).message).to.equal('b');
    });

    it('then the same id in both places (in another case) deletes it', async () => {
      const a = await legacySend(tenant, { message: 'a' });
      expect((await tenant.root.delete(`/sms/del?id=${a.toUpperCase()}`, { id: a })).status).to.equal(204);
      expectError(await tenant.root.post('/sms/get', { id: a }), 404, 'sms_not_found');
    });

    it('then an empty id in the query string does not hide the one in the body', async () => {
      const a = await legacySend(tenant, { message: 'a' });
      expect((await tenant.root.delete('/sms/del?id=', { id: a })).status).to.equal(204);
    });
  });

  describe('when device_id and its alias id name different devices', () => {
    let first: { id: string; objectId: string };
    let second: { id: string; objectId: string };

    beforeEach(async () => {
      for (const name of ['first', 'second']) {
        const { device } = await registerDevice(gateway, tenant, name);
        const row = await deviceRow(gateway, tenant, device.id);
        if (name === 'first') first = { id: device.id, objectId: row.object_id };
        else second = { id: device.id, objectId: row.object_id };
      }
    });

    it('then POST /devices/get/info is a 400 naming device_id and id', async () => {
      expectConflict(await tenant.root.post('/devices/get/info', { device_id: first.objectId, id: second.objectId }), [
        ['device_id', 'body'],
        ['id', 'body'],
      ]);
    });

    it('then POST /devices/edit is a 400 and neither device changes', async () => {
      expectConflict(await tenant.root.post('/devices/edit', { device_id: first.objectId, id: second.id, is_active: false }), [
        ['device_id', 'body'],
        ['id', 'body'],
      ]);
      for (const device of [first, second]) {
        expect((await tenant.root.post('/devices/get/info', { device_id: device.objectId })).body.is_active).to.equal(true);
      }
    });

    it('then POST /devices/del is a 400 and both devices remain', async () => {
      expectConflict(await tenant.root.post('/devices/del', { device_id: first.id, id: second.objectId }), [
        ['device_id', 'body'],
        ['id', 'body'],
      ]);
      for (const device of [first, second]) expect((await tenant.api.get(`/devices/${device.id}`)).status).to.equal(200);
    });

    it('then the same device under both names is read as that device', async () => {
      const reply = await tenant.root.post('/devices/get/info', { device_id: first.objectId, id: first.objectId.toUpperCase() });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.device_id).to.equal(first.objectId);
    });

    it('then an empty device_id does not hide the id given under the alias', async () => {
      const reply = await tenant.root.post('/devices/get/info', { device_id: '', id: second.objectId });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.device_id).to.equal(second.objectId);
    });
  });
});
