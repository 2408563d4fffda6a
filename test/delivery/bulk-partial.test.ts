// Bulk and group sends with bad rows. All-or-nothing stays the default: one opted-out recipient
// or one malformed row refuses the whole send. ?partial=true sends the valid rows and answers
// each bad row's index, recipient, error code and problems beside the SMS created; a replay with
// the same Idempotency-Key answers the same and sends nothing again.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import type { ApiClient } from '../support/tenant.ts';
import { expectError } from '../support/expectations.ts';
import { ordinaryClients } from '../opt-out/support.ts';
import { smsRowsOf } from '../support/test-data.ts';

const VALID = '+491701234501';
const OPTED_OUT = '+491701234502';
const MALFORMED = '+491701234503';

describe('bulk and group sends with bad rows', () => {
  const fx = useGateway();
  /** A key without sms:send_transactional, so that the suppression list applies. */
  let api: ApiClient;

  beforeEach(async () => {
    ({ api } = await ordinaryClients(fx));
    expect((await fx.tenant.api.post('/suppressions', { phone: OPTED_OUT })).status).to.equal(201);
  });

  const storedPhones = async () =>
    (await smsRowsOf(fx, fx.tenant.accountId)).map((row) => row.phone as string);

  describe('POST /sms/bulk with one valid row, one to an opted-out number and one without its message', () => {
    const messages = [
      { phone: VALID, message: 'your order shipped' },
      { phone: OPTED_OUT, message: 'to the one who said STOP' },
      { phone: MALFORMED },
    ];

    it('then by default the whole bulk is refused, each bad row named, and nothing is sent', async () => {
      const refused = await api.post('/sms/bulk', { messages });
      expectError(refused, 400, 'validation_failed');
      expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).to.deep.equal(['messages.1.phone', 'messages.2.message']);
      expect(await storedPhones()).to.deep.equal([]);
    });

    it('then with ?partial=true the valid row is sent and the two bad rows are answered with their indexes, once per Idempotency-Key', async () => {
      const key = randomUUID();
      const sent = await api.request('POST', '/sms/bulk?partial=true', { messages }, { 'idempotency-key': key });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
      expect(sent.body.data.map((sms: { phone: string; message: string }) => [sms.phone, sms.message])).to.deep.equal([[VALID, 'your order shipped']]);
      expect(sent.body.errors.map((row: any) => [row.index, row.recipient, row.code])).to.deep.equal([
        [1, OPTED_OUT, 'recipient_opted_out'],
        [2, MALFORMED, 'validation_failed'],
      ]);
      expect(sent.body.errors[1].errors.map((error: { field: string }) => error.field)).to.deep.equal(['message']);
      expect(sent.body.errors[1].message).to.contain('message');
      expect(await storedPhones()).to.deep.equal([VALID]);

      const again = await api.request('POST', '/sms/bulk?partial=true', { messages }, { 'idempotency-key': key });
      expect(again.status).to.equal(201);
      expect(again.body).to.deep.equal(sent.body);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(await storedPhones(), 'nothing sent twice').to.deep.equal([VALID]);
      // The key named a partial send: the same body all-or-nothing is another request.
      expectError(await api.request('POST', '/sms/bulk', { messages }, { 'idempotency-key': key }), 422, 'idempotency_key_reused');
      // With no valid row there is nothing to send: refused as without ?partial.
      expectError(await api.post('/sms/bulk?partial=true', { messages: messages.slice(1) }), 400, 'validation_failed');
      expect(await storedPhones()).to.deep.equal([VALID]);
    });

    it('then ?partial takes only a boolean, even when every row is valid', async () => {
      const refused = await api.post('/sms/bulk?partial=some', { messages: messages.slice(0, 1) });
      expectError(refused, 400, 'validation_failed');
      expect(JSON.stringify(refused.body.error)).to.contain('partial');
      expect(await storedPhones()).to.deep.equal([]);
    });
  });

  describe('POST /contacts/send to a group with one contact who can be sent to, one opted out and one without the field the template needs', () => {
    let ids: string[];
    let send: Record<string, string>;

    beforeEach(async () => {
      ids = [];
      for (const [name, phone, fields] of [
        ['Anna', VALID, { company: 'ACME' }],
        ['Bob', OPTED_OUT, { company: 'Initech' }],
        ['Carl', MALFORMED, {}],
      ] as const) {
        const reply = await fx.tenant.api.post('/contacts', { name, phone, fields });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
        ids.push(reply.body.id);
      }
      const group = await fx.tenant.api.post('/contact-groups', { name: 'Customers', contact_ids: ids });
      expect(group.status, JSON.stringify(group.body)).to.equal(201);
      send = { group_id: group.body.id, message: 'Hello {{first_name}} of {{fields.company}}' };
    });

    it('then by default nobody is sent to', async () => {
      const refused = await api.post('/contacts/send', send);
      expectError(refused, 400, 'validation_failed');
      expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).to.deep.equal(['recipients.1.phone', 'recipients.2.message']);
      expect(await storedPhones()).to.deep.equal([]);
    });

    it('then with ?partial=true Anna is sent to and the other two are answered with their indexes, once per Idempotency-Key', async () => {
      const key = randomUUID();
      const sent = await api.request('POST', '/contacts/send?partial=true', send, { 'idempotency-key': key });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
      expect(sent.body.data.map((entry: any) => [entry.contact_id, entry.phone])).to.deep.equal([[ids[0], VALID]]);
      expect(sent.body.errors.map((row: any) => [row.index, row.contact_id, row.recipient, row.code])).to.deep.equal([
        [1, ids[1], OPTED_OUT, 'recipient_opted_out'],
        [2, ids[2], MALFORMED, 'validation_failed'],
      ]);
      expect(sent.body.errors[1].message).to.contain('{{fields.company}}');
      expect(await storedPhones()).to.deep.equal([VALID]);

      const again = await api.request('POST', '/contacts/send?partial=true', send, { 'idempotency-key': key });
      expect(again.status).to.equal(201);
      expect(again.body).to.deep.equal(sent.body);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(await storedPhones(), 'nothing sent twice').to.deep.equal([VALID]);
    });
  });
});
