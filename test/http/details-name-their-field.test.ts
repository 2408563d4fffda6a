// A refusal's details each say their field in their own words, as the validator's do ("phone
// must be a valid phone number"): a client, the CLI and the panel show a detail on its own, beside
// the field it names, where "is not a valid phone number" alone says not what is wrong. These are
// the services' own refusals, which the validator does not word.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError, UNKNOWN_ID } from '../support/expectations.ts';
import type { Reply } from '../support/tenant.ts';

const PHONE_FORM = 'phone must be a valid phone number (international format such as +491701234567)';

/** Each detail's message begins with the field it names (a list's item by its dotted path). */
function expectDetailsSayTheirField(reply: Reply, status: number, code: string): void {
  expectError(reply, status, code);
  const details = reply.body.error.details as { field: string; message: string }[];
  expect(details, JSON.stringify(reply.body)).to.have.length.above(0);
  for (const detail of details) expect(detail.message, JSON.stringify(detail)).to.match(new RegExp(`^${detail.field.replace(/\./g, '\\.')} `));
}

describe('the details of a refusal name their field', function () {
  this.timeout(30_000);
  const fx = useGateway({ tenant: 'once' });

  describe('contacts', () => {
    it('then a contact with a bad number is refused with a detail that says phone, on create and on change', async () => {
      const created = await fx.tenant.api.post('/contacts', { phone: '12' });
      expectDetailsSayTheirField(created, 400, 'invalid_phone');
      expect(created.body.error).to.deep.include({ message: PHONE_FORM, details: [{ field: 'phone', in: 'body', message: PHONE_FORM }] });

      const anna = await fx.tenant.api.post('/contacts', { name: 'Anna', phone: '+491701234560' });
      expect(anna.status).to.equal(201);
      expectDetailsSayTheirField(await fx.tenant.api.patch(`/contacts/${anna.body.id}`, { phone: '12' }), 400, 'invalid_phone');
      expectDetailsSayTheirField(await fx.tenant.api.post('/contacts', { phone: '+491701234560' }), 409, 'conflict');
    });

    it('then an import names each bad row and its field, and its preview says the field too', async () => {
      const contacts = [{ phone: '+491701234561' }, { phone: '12' }, { phone: '+491701234561' }];
      const refused = await fx.tenant.api.post('/contacts/import', { contacts });
      expectError(refused, 400, 'validation_failed');
      expect(refused.body.error.details).to.deep.equal([
        { field: 'contacts.1.phone', in: 'body', message: `row 2: ${PHONE_FORM}` },
        { field: 'contacts.2.phone', in: 'body', message: 'row 3: phone is the same number as row 1' },
      ]);
      const preview = await fx.tenant.api.post('/contacts/import?dry_run=true', { contacts });
      expect(preview.body.data[1].errors).to.deep.equal([{ field: 'phone', message: PHONE_FORM }]);
    });

    it('then a CSV import with a bad header names the header in its detail', async () => {
      const reply = await fx.tenant.api.request('POST', '/contacts/import', 'name,company\nAnna,ACME\n', { 'content-type': 'text/csv' });
      expectError(reply, 400, 'validation_failed');
      expect(reply.body.error.details).to.deep.equal([{ field: 'header', in: 'body', message: 'the CSV header is invalid: the column phone is required' }]);
      const empty = await fx.tenant.api.request('POST', '/contacts/import', 'phone,name\n', { 'content-type': 'text/csv' });
      expectDetailsSayTheirField(empty, 400, 'validation_failed');
    });

    it('then groups name the unknown contact by its place in contact_ids, and a taken name says name', async () => {
      const bob = await fx.tenant.api.post('/contacts', { name: 'Bob', phone: '+491701234562' });
      const unknown = await fx.tenant.api.post('/contact-groups', { name: 'friends', contact_ids: [bob.body.id, UNKNOWN_ID] });
      expectDetailsSayTheirField(unknown, 400, 'validation_failed');
      expect(unknown.body.error.details.map((detail: { field: string }) => detail.field)).to.deep.equal(['contact_ids.1']);
      expect((await fx.tenant.api.post('/contact-groups', { name: 'friends' })).status).to.equal(201);
      expectDetailsSayTheirField(await fx.tenant.api.post('/contact-groups', { name: 'friends' }), 409, 'conflict');
      expect((await fx.tenant.api.post('/templates', { name: 'hello', text: 'Hi {{name}}' })).status).to.equal(201);
      expectDetailsSayTheirField(await fx.tenant.api.post('/templates', { name: 'hello', text: 'Hi again' }), 409, 'conflict');
    });
  });

  describe('other services', () => {
    it('then inbound rules say the field a rule with its action needs', async () => {
      expectDetailsSayTheirField(await fx.tenant.api.post('/inbound-rules', { action: 'auto_reply' }), 400, 'validation_failed');
      expectDetailsSayTheirField(await fx.tenant.api.post('/inbound-rules', { action: 'tag', tags: [] }), 400, 'validation_failed');
    });

    it('then routes say which rule\'s target names nothing', async () => {
      const reply = await fx.tenant.api.request('PUT', '/routes', { routes: [{ target: 'phones' }, { target: UNKNOWN_ID }] });
      expectDetailsSayTheirField(reply, 400, 'validation_failed');
      expect(reply.body.error.details[0].field).to.equal('routes.1.target');
    });

    it('then SMPP and Twilio credentials name the unknown device by its place in device_ids', async () => {
      const { device } = await fx.registerDevice('named');
      for (const path of ['/smpp/credentials', '/twilio/credentials']) {
        const reply = await fx.tenant.api.post(path, { device_ids: [device.id, UNKNOWN_ID] });
        expectDetailsSayTheirField(reply, 404, 'device_not_found');
        expect(reply.body.error.details[0].field, path).to.equal('device_ids.1');
      }
    });

    it('then the SMS list says phone of a phone filter that is no number', async () => {
      const reply = await fx.tenant.api.get('/sms?phone=12');
      expectDetailsSayTheirField(reply, 400, 'invalid_phone');
      expect(reply.body.error.details).to.deep.equal([{ field: 'phone', in: 'query', message: 'phone must be a valid phone number' }]);
    });
  });
});
