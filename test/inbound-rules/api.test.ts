// Inbound rules through the API: create (each action with what it needs), read, change, delete,
// reorder (every rule once), a dry run on a sample SMS (a pathological regular expression times
// out there too, and the answer still comes), validation and permissions.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError } from '../support/expectations.ts';
import { keyWith } from '../support/tenant.ts';

describe('inbound rules: the API', () => {
  const fx = useGateway();

  const create = (body: Record<string, unknown>) => fx.tenant.api.post('/inbound-rules', body);

  it('creates rules in order, shows them with their counts, changes, reorders and deletes them', async () => {
    const first = await create({ name: 'hours', match_keyword: 'HOURS', action: 'auto_reply', reply_text: 'We are open 9-18.' });
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    expect(first.body).to.deep.include({ position: 0, name: 'hours', enabled: true, match_keyword: 'HOURS', action: 'auto_reply', hits: 0, regex_timeouts: 0, stop_after: false, tags: [] });
    const second = await create({ match_regex: 'order\\s+#?\\d+', action: 'tag', tags: ['orders'] });
    const third = await create({ match_sender: '+7 916 123 45 67', action: 'forward_sms', forward_to: '+7 916 765 43 21' });
    expect(third.body).to.deep.include({ position: 2, forward_to: '+79167654321' });

    const listed = await fx.tenant.api.get('/inbound-rules');
    expect(listed.body.data.map((rule: { id: string }) => rule.id)).to.deep.equal([first.body.id, second.body.id, third.body.id]);

    const changed = await fx.tenant.api.patch(`/inbound-rules/${first.body.id}`, { enabled: false, reply_text: 'Open 10-18.' });
    expect(changed.body).to.deep.include({ enabled: false, reply_text: 'Open 10-18.', match_keyword: 'HOURS' });

    const order = [third.body.id, first.body.id, second.body.id];
    const reordered = await fx.tenant.api.request('PUT', '/inbound-rules/order', { ids: order });
    expect(reordered.status).to.equal(200);
    expect(reordered.body.data.map((rule: { id: string; position: number }) => [rule.id, rule.position])).to.deep.equal(order.map((id, position) => [id, position]));
    expectError(await fx.tenant.api.request('PUT', '/inbound-rules/order', { ids: [third.body.id, first.body.id] }), 400, 'validation_failed');
    expectError(await fx.tenant.api.request('PUT', '/inbound-rules/order', { ids: [third.body.id, first.body.id, first.body.id] }), 400, 'validation_failed');

    expect((await fx.tenant.api.delete(`/inbound-rules/${second.body.id}`)).status).to.equal(204);
    expectError(await fx.tenant.api.get(`/inbound-rules/${second.body.id}`), 404, 'inbound_rule_not_found');
    expectError(await fx.tenant.api.delete(`/inbound-rules/${second.body.id}`), 404, 'inbound_rule_not_found');
  });

  it('refuses a rule its action cannot work with, and a regular expression that is not one', async () => {
    expectError(await create({ action: 'auto_reply' }), 400, 'validation_failed');
    expectError(await create({ action: 'forward_sms', forward_to: 'nobody' }), 400, 'invalid_phone');
    expectError(await create({ action: 'forward_email' }), 400, 'validation_failed');
    expectError(await create({ action: 'forward_email', email_to: 'not-an-email' }), 400, 'validation_failed');
    expectError(await create({ action: 'tag', tags: [] }), 400, 'validation_failed');
    expectError(await create({ action: 'tag', tags: ['a b'] }), 400, 'validation_failed');
    expectError(await create({ action: 'tag', tags: ['x'], match_regex: '(unclosed' }), 400, 'validation_failed');
    expectError(await create({ action: 'tag', tags: ['x'], match_device_id: '00000000-0000-4000-8000-000000000000' }), 404, 'device_not_found');
    expectError(await create({ action: 'launch_rockets' }), 400, 'validation_failed');
    expectError(await create({ action: 'tag', tags: ['x'], colour: 'red' }), 400, 'validation_failed');
    expect((await fx.tenant.api.get('/inbound-rules')).body.data).to.deep.equal([]);
  });

  it('dry-runs a sample SMS: each rule\'s verdict, stop_after honoured, a pathological pattern timed out, nothing counted', async () => {
    const evil = await create({ name: 'evil', match_regex: '^(a+)+$', action: 'tag', tags: ['evil'] });
    const word = await create({ name: 'word', match_keyword: 'price', action: 'auto_reply', reply_text: 'From 10 EUR.', stop_after: true });
    const any = await create({ name: 'any', action: 'tag', tags: ['all'] });
    const started = Date.now();
    const result = await fx.tenant.api.post('/inbound-rules/dry-run', { phone: '+79161234567', message: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' });
    expect(Date.now() - started).to.be.below(5_000);
    expect(result.status, JSON.stringify(result.body)).to.equal(200);
    expect(result.body.data).to.deep.equal([
      { rule_id: evil.body.id, name: 'evil', action: 'tag', matched: false, timed_out: true },
      { rule_id: word.body.id, name: 'word', action: 'auto_reply', matched: false, timed_out: false },
      { rule_id: any.body.id, name: 'any', action: 'tag', matched: true, timed_out: false },
    ]);
    const priced = await fx.tenant.api.post('/inbound-rules/dry-run', { phone: '+79161234567', message: 'Price please' });
    expect(priced.body.actions).to.deep.equal([word.body.id]);
    const counts = (await fx.tenant.api.get('/inbound-rules')).body.data.map((rule: { hits: number; regex_timeouts: number }) => [rule.hits, rule.regex_timeouts]);
    expect(counts).to.deep.equal([[0, 0], [0, 0], [0, 0]]);
  });

  it('needs inbound_rules:read to read and dry-run, inbound_rules:write to change', async () => {
    const reader = await keyWith(fx.gateway, fx.tenant, ['inbound_rules:read']);
    expect((await reader.get('/inbound-rules')).status).to.equal(200);
    expect((await reader.post('/inbound-rules/dry-run', { phone: '+79161234567', message: 'hi' })).status).to.equal(200);
    expectError(await reader.post('/inbound-rules', { action: 'tag', tags: ['x'] }), 403, 'forbidden');
  });

  it('keeps each account\'s rules its own', async () => {
    const rule = await create({ action: 'tag', tags: ['mine'] });
    const other = await fx.gateway.services.accounts.create(`other-${Date.now()}`);
    const { key } = await fx.gateway.services.apiKeys.create(other.id, ['inbound_rules:read', 'inbound_rules:write']);
    const response = await fetch(`${fx.tenant.api.baseUrl}/inbound-rules/${rule.body.id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).to.equal(404);
  });
});
