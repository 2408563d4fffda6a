// Legacy clients add query parameters of their own, such as a cache-buster `_=1732541234` that
// some HTTP libraries append to every GET. The legacy family ignores query parameters it does not
// know, on every route; the parameters it knows are checked as before, and body fields it does not
// know stay a 400, because the spec lists the fields of each body.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { detailFields, expectError } from '../support/expectations.ts';
import { deviceRow, legacyGet, legacySend, PHONE, uuidOfMessage } from '../support/legacy.ts';

const CACHE_BUSTER = '_=1732541234';

describe('legacy API: query parameters it does not know', () => {
  const fx = useGateway();

  /** A registered device of the tenant: both of its ids. */
  async function device() {
    const { device: registered } = await fx.registerDevice();
    return { uuid: registered.id, objectId: (await deviceRow(fx.gateway, fx.tenant, registered.id)).object_id };
  }

  describe('when GET /sms carries a cache-buster and other parameters it does not know', () => {
    it('then it answers 200 with the page it answers without them', async () => {
      for (let i = 0; i < 3; i++) await legacySend(fx.tenant, { message: `hello ${i}` });
      const plain = await fx.tenant.root.get('/sms?limit=2&offset=2&search=hello');
      expect(plain.status, JSON.stringify(plain.body)).to.equal(200);
      expect(plain.body.sms_list).to.have.length(1);

      for (const extra of [CACHE_BUSTER, `${CACHE_BUSTER}&utm_source=app&callback=jQuery123`, '_=1&_=2', 'limit2=5']) {
        const reply = await fx.tenant.root.get(`/sms?limit=2&offset=2&search=hello&${extra}`);
        expect(reply.status, `${extra}: ${JSON.stringify(reply.body)}`).to.equal(200);
        expect(reply.body, extra).to.deep.equal(plain.body);
      }
    });

    it('then the parameters it knows are still checked: limit=0 beside a cache-buster is a 400 naming limit', async () => {
      const reply = await fx.tenant.root.get(`/sms?limit=0&${CACHE_BUSTER}`);
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.deep.equal(['limit']);
    });
  });

  describe('when DELETE /sms/del carries a cache-buster beside the id', () => {
    it('then it deletes the SMS (204)', async () => {
      const id = await legacySend(fx.tenant);
      const reply = await fx.tenant.root.delete(`/sms/del?id=${id}&${CACHE_BUSTER}`);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(204);
      expectError(await fx.tenant.root.post('/sms/get', { id }), 404, 'sms_not_found');
    });

    it('then with the id in the body and only a cache-buster in the query, it deletes the SMS too', async () => {
      const id = await legacySend(fx.tenant);
      expect((await fx.tenant.root.delete(`/sms/del?${CACHE_BUSTER}`, { id })).status).to.equal(204);
      expectError(await fx.tenant.root.post('/sms/get', { id }), 404, 'sms_not_found');
    });

    it('then an unknown body field is still a 400 naming it, and the SMS stays', async () => {
      const id = await legacySend(fx.tenant);
      const reply = await fx.tenant.root.delete(`/sms/del?${CACHE_BUSTER}`, { id, force: true });
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.deep.equal(['force']);
      expect((await legacyGet(fx.tenant, id)).id).to.equal(id);
    });
  });

  describe('when a POST of the legacy family carries a cache-buster', () => {
    it('then /sms/send, /sms/get, /devices/get/info, /devices/edit and /devices/del answer as they do without it', async () => {
      const sent = await fx.tenant.root.post(`/sms/send?${CACHE_BUSTER}`, { message: 'busted', phone_number: PHONE });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
      const read = await fx.tenant.root.post(`/sms/get?${CACHE_BUSTER}`, { id: sent.body.id });
      expect(read.status).to.equal(200);
      expect(read.body.message).to.equal('busted');
      expect(await uuidOfMessage(fx.tenant, 'busted')).to.be.a('string');

      const ids = await device();
      const info = await fx.tenant.root.post(`/devices/get/info?${CACHE_BUSTER}`, { device_id: ids.objectId });
      expect(info.status).to.equal(200);
      expect(info.body.device_id).to.equal(ids.objectId);
      expect((await fx.tenant.root.post(`/devices/edit?${CACHE_BUSTER}`, { device_id: ids.objectId, is_active: false })).status).to.equal(204);
      expect((await fx.tenant.api.get(`/devices/${ids.uuid}`)).body.can_send_sms).to.equal(false);
      expect((await fx.tenant.root.post(`/devices/del?${CACHE_BUSTER}`, { device_id: ids.objectId })).status).to.equal(204);
      expectError(await fx.tenant.api.get(`/devices/${ids.uuid}`), 404, 'device_not_found');
    });

    it('then unknown body fields are still a 400 naming them, and nothing is sent or changed', async () => {
      const send = await fx.tenant.root.post(`/sms/send?${CACHE_BUSTER}`, { message: 'extra', phone_number: PHONE, priority: 1 });
      expectError(send, 400, 'validation_failed');
      expect(detailFields(send)).to.deep.equal(['priority']);
      expect((await fx.tenant.root.get('/sms?limit=10')).body.pagination.total_records).to.equal(0);

      const ids = await device();
      const edit = await fx.tenant.root.post(`/devices/edit?${CACHE_BUSTER}`, { device_id: ids.objectId, is_active: false, name: 'x' });
      expectError(edit, 400, 'validation_failed');
      expect(detailFields(edit)).to.deep.equal(['name']);
      expect((await fx.tenant.api.get(`/devices/${ids.uuid}`)).body.can_send_sms).to.equal(true);
    });
  });

  describe('when the Extended API gets a query parameter it does not know', () => {
    it('then a GET ignores it too, and a POST stays a 400 naming it: only the legacy family ignores them on every method', async () => {
      expect((await fx.tenant.api.get(`/sms?${CACHE_BUSTER}`)).status).to.equal(200);
      const reply = await fx.tenant.api.post(`/sms?${CACHE_BUSTER}`, { phone: PHONE, message: 'strict' });
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.deep.equal(['_']);
    });
  });
});
