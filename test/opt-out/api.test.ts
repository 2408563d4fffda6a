// The suppression list through the API: add (once), list (paged, newest first), remove, CSV and
// JSON import (bad lines reported, the rest added), CSV export; permissions; and the webhook
// events contact.opted_out / contact.opted_in, whether a keyword or the API changed the list.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError } from '../support/expectations.ts';
import { keyWith } from '../support/tenant.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';
import { receive, receivingPhone, suppressed } from './support.ts';

describe('opt-out: the suppressions API', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });

  it('adds a number once (201, then 200 with the same entry), normalized to E.164', async () => {
    const first = await fx.tenant.api.post('/suppressions', { phone: '+7 916 123-45-67' });
    expect(first.status).to.equal(201);
    expect(first.body).to.deep.include({ phone: '+79161234567', source: 'api', keyword: null });
    expect(Object.keys(first.body).sort()).to.deep.equal(['created_at', 'id', 'keyword', 'phone', 'source']);
    const again = await fx.tenant.api.post('/suppressions', { phone: '+79161234567' });
    expect(again.status).to.equal(200);
    expect(again.body.id).to.equal(first.body.id);
    expectError(await fx.tenant.api.post('/suppressions', { phone: 'not a phone' }), 400, 'invalid_phone');
    expectError(await fx.tenant.api.post('/suppressions', { phone: '+79161234567', extra: 1 }), 400, 'validation_failed');
  });

  it('lists newest first in pages', async () => {
    for (const phone of ['+79161230001', '+79161230002', '+79161230003']) await fx.tenant.api.post('/suppressions', { phone });
    const first = await fx.tenant.api.get('/suppressions?limit=2');
    expect(first.body.data.map((row: { phone: string }) => row.phone)).to.deep.equal(['+79161230003', '+79161230002']);
    const second = await fx.tenant.api.get(`/suppressions?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).to.deep.include({ next_cursor: null });
    expect(second.body.data.map((row: { phone: string }) => row.phone)).to.deep.equal(['+79161230001']);
    expectError(await fx.tenant.api.get('/suppressions?limit=0'), 400, 'validation_failed');
  });

  it('imports CSV and JSON, reporting the lines of the file (header counted) that are no number, and exports the list as CSV', async () => {
    const csv = 'phone\n+79161230001\n"+79161230002"\nnonsense\n\n+79161230001\n';
    const response = await fetch(`${fx.tenant.api.baseUrl}/suppressions/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.tenant.key}`, 'content-type': 'text/csv' },
      body: csv,
    });
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ added: 2, already: 0, invalid: [{ line: 4, message: 'not a valid phone number' }] });
    const json = await fx.tenant.api.post('/suppressions/import', { phones: ['+79161230002', '+79161230003'] });
    expect(json.body).to.deep.equal({ added: 1, already: 1, invalid: [] });
    expect(await suppressed(fx.tenant)).to.deep.equal(['+79161230001', '+79161230002', '+79161230003']);

    const exported = await fetch(`${fx.tenant.api.baseUrl}/suppressions/export`, { headers: { authorization: `Bearer ${fx.tenant.key}` } });
    expect(exported.status).to.equal(200);
    expect(exported.headers.get('content-type')).to.match(/^text\/csv/);
    const lines = (await exported.text()).trim().split('\r\n');
    expect(lines[0]).to.equal('phone,source,keyword,created_at');
    expect(lines.slice(1).map((line) => line.split(',').slice(0, 2).join(',')).sort()).to.deep.equal([
      '+79161230001,import',
      '+79161230002,import',
      '+79161230003,import',
    ]);
  });

  it('needs suppressions:read to read and suppressions:write to change', async () => {
    const reader = await keyWith(fx.gateway, fx.tenant, ['suppressions:read']);
    expect((await reader.get('/suppressions')).status).to.equal(200);
    expect((await reader.get('/account/opt-out')).status).to.equal(200);
    expectError(await reader.post('/suppressions', { phone: '+79161234567' }), 403, 'forbidden');
    expectError(await reader.patch('/account/opt-out', { enabled: false }), 403, 'forbidden');
    const sender = await keyWith(fx.gateway, fx.tenant, ['sms:send']);
    expectError(await sender.get('/suppressions'), 403, 'forbidden');
  });

  it('sends contact.opted_out and contact.opted_in webhooks for keywords and for the API', async () => {
    const receiver = await fx.receiver();
    await createWebhook(fx.tenant, receiver.url, ['contact.opted_out', 'contact.opted_in']);
    const phone = await receivingPhone(fx);
    await receive(phone, '+79161234567', 'STOP');
    await receive(phone, '+79161234567', 'START');
    await fx.tenant.api.post('/suppressions', { phone: '+79161234568' });
    await receive(phone, '+79161234569', 'just a message');
    const got = await receiver.waitFor(3);
    const events = got.map((request) => [request.json.type, request.json.data.contact]);
    // Events of no SMS are kept in no order between them.
    expect(events).to.have.deep.members([
      ['contact.opted_out', { phone: '+79161234567', source: 'keyword', keyword: 'STOP' }],
      ['contact.opted_in', { phone: '+79161234567', source: 'keyword', keyword: 'START' }],
      ['contact.opted_out', { phone: '+79161234568', source: 'api', keyword: null }],
    ]);
    expect(got.every((request) => request.json.account_id === fx.tenant.accountId)).to.equal(true);
  });
});
