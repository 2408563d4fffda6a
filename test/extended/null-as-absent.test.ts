// Many clients write every member of their model, null for those not set (Jackson, System.Text.Json,
// Pydantic, most generated clients). In a request body, null given for an optional member is the
// member not given; a required member's null is still refused, a member whose null means something
// of its own (sim_slot: the device decides) keeps it, and an unknown member is still a 400. The
// OpenAPI document says so.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { detailFields, expectError } from '../support/expectations.ts';

const PHONE = '+79161234567';

describe('request bodies: null for an optional member', () => {
  const fx = useGateway();

  describe('when POST /sms gives device_id and the other optional members as null', () => {
    it('then the SMS is created as without them: no device named, priority 0', async () => {
      const reply = await fx.tenant.api.post('/sms', {
        phone: PHONE,
        message: 'nulls',
        device_id: null,
        callback_id: null,
        send_at: null,
        valid_until: null,
        ttl: null,
        priority: null,
        no_store: null,
        sim_slot: null,
      });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body.device_id).to.equal(null);
      expect(reply.body.priority).to.equal(0);
      expect((await fx.tenant.api.get(`/sms/${reply.body.id}`)).status).to.equal(200);
    });
  });

  describe('when each row of POST /sms/bulk gives device_id as null', () => {
    it('then every row is created', async () => {
      const reply = await fx.tenant.api.post('/sms/bulk', { messages: [{ phone: PHONE, message: 'one', device_id: null }, { phone: PHONE, message: 'two', send_at: null }] });
      expect(reply.status, JSON.stringify(reply.body)).to.be.oneOf([200, 201]);
      expect((await fx.tenant.api.get('/sms')).body.data).to.have.length(2);
    });
  });

  describe('when the legacy POST /sms/send gives device_id as null', () => {
    it('then any device of the account may send it, as without device_id', async () => {
      const reply = await fx.tenant.root.post('/sms/send', { phone_number: PHONE, message: 'legacy nulls', device_id: null, callback_id: null });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.id).to.match(/^[0-9a-f]{24}$/);
    });
  });

  describe('when a partial PATCH gives the members it does not change as null', () => {
    it('then only the members given change', async () => {
      const created = await fx.tenant.api.post('/contacts', { name: 'Ann', phone: PHONE, tags: ['a'] });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const reply = await fx.tenant.api.patch(`/contacts/${created.body.id}`, { name: 'Anna', phone: null, tags: null, fields: null });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body).to.include({ name: 'Anna', phone: PHONE });
      expect(reply.body.tags).to.deep.equal(['a']);
    });

    it('then a PATCH of nothing but nulls names nothing to change, a 400', async () => {
      const created = await fx.tenant.api.post('/contacts', { name: 'Ann', phone: PHONE });
      const reply = await fx.tenant.api.patch(`/contacts/${created.body.id}`, { name: null, phone: null });
      expectError(reply, 400, 'validation_failed');
    });
  });

  describe('when a required member is null, or an unknown one is', () => {
    it('then the required one is still a 400 naming it', async () => {
      const reply = await fx.tenant.api.post('/sms', { phone: null, message: 'x' });
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.deep.equal(['phone']);
    });

    it('then the unknown one is still a 400 naming it', async () => {
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', colour: null });
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.deep.equal(['colour']);
    });
  });

  describe('when the OpenAPI document is read', () => {
    it('then it says that null for an optional member is taken as not given', async () => {
      const doc = (await (await fetch(`${fx.baseUrl}/api/ext/v1/openapi.json`)).json()) as { info: { description: string } };
      expect(doc.info.description).to.match(/null given for an optional member is taken as the member not given/);
    });
  });
});
