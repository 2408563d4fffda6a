// Contacts, groups and templates over HTTP: CRUD with tenancy and checks, a CSV import previewed
// row by row then written, templates rendered per contact with their segment counts, and sends to
// a group and to a tag reaching a real phone on the broker as a bulk send.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { useGateway } from '../support/use-gateway.ts';
import { UNPACED } from '../support/task-phone.ts';
import { expectError, UNKNOWN_ID } from '../support/expectations.ts';

const CSV = [
  'name,phone,tags,company',
  'Anna Schmidt,+491701234501,vip;berlin,ACME',
  '"Bob ""B"" Jones",+491701234502,berlin,',
  'Carla,not a number,,',
  'Dup,+491701234501,,',
].join('\r\n');

describe('contacts, groups and templates', () => {
  const fx = useGateway();

  async function contact(body: Record<string, unknown>): Promise<any> {
    const reply = await fx.tenant.api.post('/contacts', body);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body;
  }

  function postCsv(path: string, text: string) {
    return fx.tenant.api.request('POST', path, text, { 'content-type': 'text/csv' });
  }

  it('creates, reads, changes, lists and deletes contacts, one per number, and never another account\'s', async () => {
    const anna = await contact({ name: 'Anna Schmidt', phone: '+49 170 1234501', tags: ['vip', 'vip', 'berlin'], fields: { company: 'ACME' } });
    expect(anna).to.include({ name: 'Anna Schmidt', phone: '+491701234501' });
    expect(anna.tags).to.deep.equal(['vip', 'berlin']);
    expect(anna.fields).to.deep.equal({ company: 'ACME' });
    expectError(await fx.tenant.api.post('/contacts', { phone: '+491701234501' }), 409, 'conflict');
    expectError(await fx.tenant.api.post('/contacts', { phone: 'nope' }), 400, 'invalid_phone');
    expectError(await fx.tenant.api.post('/contacts', { phone: '+491701234509', fields: { company: 5 } }), 400, 'validation_failed');
    expectError(await fx.tenant.api.post('/contacts', { phone: '+491701234509', tags: ['has space'] }), 400, 'validation_failed');
    await contact({ name: 'Bob', phone: '+491701234502', tags: ['berlin'] });

    const changed = await fx.tenant.api.patch(`/contacts/${anna.id}`, { tags: ['vip'] });
    expect(changed.body.tags).to.deep.equal(['vip']);
    expect((await fx.tenant.api.get('/contacts?tag=berlin')).body.data.map((c: any) => c.name)).to.deep.equal(['Bob']);
    const first = await fx.tenant.api.get('/contacts?limit=1');
    expect(first.body.data.map((c: any) => c.name)).to.deep.equal(['Bob']);
    const second = await fx.tenant.api.get(`/contacts?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((c: any) => c.name)).to.deep.equal(['Anna Schmidt']);

    const other = await fx.newTenant();
    expectError(await other.api.get(`/contacts/${anna.id}`), 404, 'contact_not_found');
    expectError(await other.api.delete(`/contacts/${anna.id}`), 404, 'contact_not_found');
    expect((await other.api.get('/contacts')).body.data).to.deep.equal([]);
    expect((await fx.tenant.api.delete(`/contacts/${anna.id}`)).status).to.equal(204);
    expectError(await fx.tenant.api.get(`/contacts/${anna.id}`), 404, 'contact_not_found');
  });

  it('previews a CSV import row by row, refuses it whole while a row is wrong, and imports it once fixed', async () => {
    await contact({ name: 'Old Bob', phone: '+491701234502' });
    const preview = await postCsv('/contacts/import?dry_run=true', CSV);
    expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
    const rows = preview.body.data;
    expect(rows[0]).to.deep.equal({ index: 0, valid: true, action: 'create', name: 'Anna Schmidt', phone: '+491701234501', tags: ['vip', 'berlin'], fields: { company: 'ACME' } });
    expect(rows[1]).to.include({ valid: true, action: 'update', name: 'Bob "B" Jones' });
    expect(rows[1].fields).to.deep.equal({});
    expect(rows[2]).to.include({ valid: false });
    expect(rows[2].errors[0].field).to.equal('phone');
    expect(rows[3].errors[0].message).to.equal('phone is the same number as row 1');
    // Nothing was written by the preview.
    expect((await fx.tenant.api.get('/contacts')).body.data).to.have.length(1);

    const refused = await postCsv('/contacts/import', CSV);
    expectError(refused, 400, 'validation_failed');
    expect(refused.body.error.details.map((d: any) => d.field)).to.deep.equal(['contacts.2.phone', 'contacts.3.phone']);
    expect((await fx.tenant.api.get('/contacts')).body.data).to.have.length(1);

    const fixed = CSV.split('\r\n').slice(0, 3).join('\r\n');
    const imported = await postCsv('/contacts/import', fixed);
    expect(imported.status, JSON.stringify(imported.body)).to.equal(201);
    expect(imported.body).to.deep.equal({ created: 1, updated: 1 });
    const names = (await fx.tenant.api.get('/contacts')).body.data.map((c: any) => c.name);
    expect(names).to.have.members(['Anna Schmidt', 'Bob "B" Jones']);

    expectError(await postCsv('/contacts/import', 'name,company\r\nX,Y'), 400, 'validation_failed');
    expectError(await postCsv('/contacts/import', 'phone,bad column!\r\n+491701234503,x'), 400, 'validation_failed');
    expectError(await postCsv('/contacts/import', 'phone\r\n"+4917012345'), 400, 'validation_failed');
  });

  it('keeps groups and templates per account, and refuses an unknown placeholder', async () => {
    const anna = await contact({ name: 'Anna', phone: '+491701234501' });
    const group = await fx.tenant.api.post('/contact-groups', { name: 'Customers', contact_ids: [anna.id] });
    expect(group.status, JSON.stringify(group.body)).to.equal(201);
    expect(group.body).to.include({ name: 'Customers', members: 1 });
    expectError(await fx.tenant.api.post('/contact-groups', { name: 'Customers' }), 409, 'conflict');
    expectError(await fx.tenant.api.post(`/contact-groups/${group.body.id}/members`, { contact_ids: [UNKNOWN_ID] }), 400, 'validation_failed');
    const bob = await contact({ name: 'Bob', phone: '+491701234502' });
    expect((await fx.tenant.api.post(`/contact-groups/${group.body.id}/members`, { contact_ids: [bob.id, bob.id] })).body.members).to.equal(2);
    expect((await fx.tenant.api.get(`/contacts?group_id=${group.body.id}`)).body.data).to.have.length(2);
    expect((await fx.tenant.api.post(`/contact-groups/${group.body.id}/members/remove`, { contact_ids: [anna.id] })).body.members).to.equal(1);
    expect((await fx.tenant.api.get('/contact-groups')).body.data.map((g: any) => g.name)).to.deep.equal(['Customers']);

    expectError(await fx.tenant.api.post('/templates', { name: 'Bad', text: 'Hi {{nickname}}' }), 400, 'validation_failed');
    const template = await fx.tenant.api.post('/templates', { name: 'Greeting', text: 'Hi {{first_name}} of {{fields.company}}' });
    expect(template.status).to.equal(201);
    expectError(await fx.tenant.api.patch(`/templates/${template.body.id}`, { text: '{{ fields.bad name }}' }), 400, 'validation_failed');

    const other = await fx.newTenant();
    expectError(await other.api.get(`/contact-groups/${group.body.id}`), 404, 'group_not_found');
    expectError(await other.api.get(`/templates/${template.body.id}`), 404, 'template_not_found');
    expect((await fx.tenant.api.delete(`/templates/${template.body.id}`)).status).to.equal(204);
    expect((await fx.tenant.api.delete(`/contact-groups/${group.body.id}`)).status).to.equal(204);
    expect((await fx.tenant.api.get(`/contacts/${bob.id}`)).status).to.equal(200);
  });

  it('previews a template per recipient with segments, and names a missing placeholder value per recipient', async () => {
    const anna = await contact({ name: 'Anna Schmidt', phone: '+491701234501', tags: ['vip'], fields: { company: 'ACME' } });
    const bob = await contact({ name: 'Bob', phone: '+491701234502', tags: ['vip'] });
    const template = (await fx.tenant.api.post('/templates', { name: 'Greeting', text: 'Hi {{first_name}} of {{fields.company}} 👋' })).body;
    const preview = await fx.tenant.api.post('/contacts/send?dry_run=true', { tag: 'vip', template_id: template.id });
    expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
    expect(preview.body.data).to.deep.equal([
      { contact_id: anna.id, valid: true, phone: '+491701234501', message: 'Hi Anna of ACME 👋', segments: 1, encoding: 'ucs2' },
      { contact_id: bob.id, valid: false, phone: '+491701234502', errors: [{ field: 'message', message: 'the contact has no value for {{fields.company}}' }] },
    ]);
    const long = await fx.tenant.api.post('/contacts/send?dry_run=true', { tag: 'vip', message: `${'x'.repeat(160)} {{name}}` });
    expect(long.body.data[0]).to.include({ valid: false });
    expect(long.body.data[1]).to.include({ valid: true, segments: 2, encoding: 'gsm7' });

    const refused = await fx.tenant.api.post('/contacts/send', { tag: 'vip', template_id: template.id });
    expectError(refused, 400, 'validation_failed');
    expect(refused.body.error.details).to.deep.equal([
      { field: 'recipients.1.message', in: 'body', message: `+491701234502 (contact ${bob.id}): the contact has no value for {{fields.company}}` },
    ]);
    expect((await fx.tenant.api.get('/sms')).body.data).to.deep.equal([]);
    expectError(await fx.tenant.api.post('/contacts/send', { tag: 'vip', group_id: UNKNOWN_ID, message: 'x' }), 400, 'validation_failed');
    expectError(await fx.tenant.api.post('/contacts/send', { tag: 'nobody', message: 'x' }), 400, 'validation_failed');
    expectError(await fx.tenant.api.post('/contacts/send', { group_id: UNKNOWN_ID, message: 'x' }), 404, 'group_not_found');
    expectError(await fx.tenant.api.post('/contacts/send', { tag: 'vip', template_id: UNKNOWN_ID }), 404, 'template_not_found');
  });

  it('sends to a group and to a tag as a bulk send, each SMS reaching the phone with its own text', async () => {
    const phone = await fx.taskPhone(UNPACED);
    const anna = await contact({ name: 'Anna Schmidt', phone: '+491701234501', tags: ['vip'] });
    const bob = await contact({ name: 'Bob Jones', phone: '+491701234502' });
    const group = (await fx.tenant.api.post('/contact-groups', { name: 'All', contact_ids: [anna.id, bob.id] })).body;
    const template = (await fx.tenant.api.post('/templates', { name: 'Hello', text: 'Hello {{first_name}}, your number is {{phone}}' })).body;

    const key = randomUUID();
    const sent = await fx.tenant.api.request('POST', '/contacts/send', { group_id: group.id, template_id: template.id, device_id: phone.id }, { 'idempotency-key': key });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    expect(sent.body.data.map((entry: any) => [entry.contact_id, entry.phone])).to.deep.equal([
      [anna.id, '+491701234501'],
      [bob.id, '+491701234502'],
    ]);
    // The same key replays the answer: nothing is sent twice.
    const again = await fx.tenant.api.request('POST', '/contacts/send', { group_id: group.id, template_id: template.id, device_id: phone.id }, { 'idempotency-key': key });
    expect(again.body).to.deep.equal(sent.body);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');

    await phone.settle();
    await phone.until(2);
    expect(phone.tasks.map((task) => [task.phone, task.message])).to.have.deep.members([
      ['+491701234501', 'Hello Anna, your number is +491701234501'],
      ['+491701234502', 'Hello Bob, your number is +491701234502'],
    ]);
    await phone.sendAll();
    expect((await fx.tenant.api.get(`/sms/${sent.body.data[0].sms_id}`)).body).to.include({ status: 'sent', device_id: phone.id });

    const byTag = await fx.tenant.api.post('/contacts/send', { tag: 'vip', message: 'VIP sale for {{name}}' });
    expect(byTag.status, JSON.stringify(byTag.body)).to.equal(201);
    expect(byTag.body.data).to.have.length(1);
    await phone.settle();
    await phone.until(3);
    expect(phone.tasks.map((task) => task.message)).to.deep.equal(['VIP sale for Anna Schmidt']);
    // Sends through contacts are ordinary SMS: the conversation with each number moved.
    expect((await fx.tenant.api.get('/conversations')).body.data.map((c: any) => c.phone)).to.have.members(['+491701234501', '+491701234502']);
  });
});
