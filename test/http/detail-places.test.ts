// Every detail of a refusal says where the request holds its field (`in`), on both families:
// what the validator refuses and what a service refuses itself ("phone must be a valid phone
// number", "to must be after from"), in a body, a query string, a path or a header.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import type { ApiClient, Reply } from '../support/tenant.ts';

const PHONE = '+79161234567';
const NO_DEVICE = '00000000-0000-4000-8000-000000000000';

interface Case {
  what: string;
  family: 'api' | 'root';
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  field: string;
  in: 'body' | 'query' | 'path' | 'header';
}

const CASES: Case[] = [
  { what: 'a body field the schema refuses', family: 'api', method: 'POST', path: '/sms', body: { phone: PHONE, message: 'x', extra: 1 }, field: 'extra', in: 'body' },
  { what: 'a body field the service refuses', family: 'api', method: 'POST', path: '/sms', body: { phone: 'abc', message: 'x' }, field: 'phone', in: 'body' },
  { what: 'two body fields the service finds at odds', family: 'api', method: 'POST', path: '/sms', body: { phone: PHONE, message: 'x', ttl: 60, valid_until: '2099-01-01T00:00:00Z' }, field: 'ttl', in: 'body' },
  { what: 'a row of a bulk send', family: 'api', method: 'POST', path: '/sms/bulk', body: { messages: [{ phone: 'abc', message: 'x' }] }, field: 'messages.0.phone', in: 'body' },
  { what: 'a webhook URL the service refuses', family: 'api', method: 'POST', path: '/webhooks', body: { url: 'ftp://example.com', events: ['device.online'] }, field: 'url', in: 'body' },
  { what: 'a contact\'s phone', family: 'api', method: 'POST', path: '/contacts', body: { name: 'a', phone: 'abc' }, field: 'phone', in: 'body' },
  { what: 'a query parameter the schema refuses', family: 'api', method: 'GET', path: '/sms?status=bogus', field: 'status', in: 'query' },
  { what: 'query parameters the service finds at odds', family: 'api', method: 'GET', path: `/devices/${NO_DEVICE}/availability?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z`, field: 'to', in: 'query' },
  { what: 'a path parameter the schema refuses', family: 'api', method: 'GET', path: '/sms/not-a-uuid', field: 'id', in: 'path' },
  { what: 'a path parameter the service refuses', family: 'api', method: 'DELETE', path: '/suppressions/abc', field: 'phone', in: 'path' },
  { what: 'a header', family: 'api', method: 'POST', path: '/sms', body: { phone: PHONE, message: 'x' }, headers: { 'idempotency-key': 'x'.repeat(300) }, field: 'Idempotency-Key', in: 'header' },
  { what: 'a legacy body field the service refuses', family: 'root', method: 'POST', path: '/sms/send', body: { phone_number: 'abc', message: 'x' }, field: 'phone_number', in: 'body' },
  { what: 'a legacy id in the body', family: 'root', method: 'POST', path: '/sms/get', body: { id: 'zzz' }, field: 'id', in: 'body' },
  { what: 'a legacy device id missing from the body', family: 'root', method: 'POST', path: '/devices/get/info', body: {}, field: 'device_id', in: 'body' },
  { what: 'a legacy id in the query string', family: 'root', method: 'DELETE', path: '/sms/del?id=zzz', field: 'id', in: 'query' },
  { what: 'a legacy id in the body of a delete', family: 'root', method: 'DELETE', path: '/sms/del', body: { id: 'zzz' }, field: 'id', in: 'body' },
  { what: 'a legacy id given nowhere', family: 'root', method: 'DELETE', path: '/sms/del', field: 'id', in: 'query' },
  { what: 'a legacy query parameter', family: 'root', method: 'GET', path: '/sms?limit=0', field: 'limit', in: 'query' },
];

describe('where a refused field is: every detail says `in`', () => {
  const fx = useGateway({ tenant: 'once' });

  for (const each of CASES) {
    it(`then ${each.what} (${each.method} ${each.path}) is named in ${each.in}`, async () => {
      const client: ApiClient = each.family === 'api' ? fx.tenant.api : fx.tenant.root;
      const reply: Reply = await client.request(each.method, each.path, each.body, each.headers);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
      const details = reply.body.error.details as { field: string; in?: string; message: string }[];
      expect(details, JSON.stringify(reply.body)).to.be.an('array').that.is.not.empty;
      for (const detail of details) expect(detail, JSON.stringify(reply.body)).to.have.keys('field', 'in', 'message');
      expect(details[0]).to.include({ field: each.field, in: each.in });
    });
  }
});
