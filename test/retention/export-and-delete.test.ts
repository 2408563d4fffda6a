// An account's data, exported whole (JSON or CSV, streamed), and an account deleted with
// everything in it by the instance administrator, confirmed by its name.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { UNPACED } from '../support/task-phone.ts';
import { expectError } from '../support/expectations.ts';
import { userSession } from '../support/session-client.ts';
import { PhoneTraffic } from './phone-traffic.ts';

const CUSTOMER = '+79005550121';

describe('retention: export and account deletion', () => {
  const fx = useGateway();

  async function traffic(): Promise<PhoneTraffic> {
    return new PhoneTraffic(fx.tenant, await fx.taskPhone({ ...UNPACED, forward_incoming_sms: true }));
  }

  it('exports every sent and received SMS and conversation as JSON', async () => {
    const phone = await traffic();
    const sentId = await phone.send(CUSTOMER, 'hello, "world"');
    await phone.receive(CUSTOMER, 'reply\nwith a line break');
    const other = await fx.newTenant();
    await other.api.post('/sms', { phone: CUSTOMER, message: 'not this account\'s' });

    const response = await fetch(`${fx.baseUrl}/api/ext/v1/account/export`, { headers: { authorization: `Bearer ${fx.tenant.key}` } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    const body = await response.json() as any;
    expect(body.account_id).to.equal(fx.tenant.accountId);
    expect(body.retention).to.deep.equal({ keep_text_days: null, hash_recipients: false });
    expect(body.mail).to.deep.equal({ text: 'body', chosen: false });
    expect(body.records.map((record: any) => [record.record, record.message])).to.deep.equal([
      ['sms', 'hello, "world"'],
      ['incoming', 'reply\nwith a line break'],
      ['conversation', ''],
    ]);
    expect(body.records[0]).to.include({ id: sentId, phone: CUSTOMER, status: 'sent', device_id: phone.phone.id, redacted_at: null });
    expect(body.records[2]).to.include({ phone: CUSTOMER, unread_count: 1 });
    expect(JSON.stringify(body)).not.to.include('not this account');
  });

  it('exports the address book too: contacts, groups with their members, and templates', async () => {
    const contact = (await fx.tenant.api.post('/contacts', { name: 'Anna', phone: CUSTOMER, tags: ['vip'], fields: { company: 'ACME' } })).body;
    const group = (await fx.tenant.api.post('/contact-groups', { name: 'Customers', contact_ids: [contact.id] })).body;
    const template = (await fx.tenant.api.post('/templates', { name: 'Hi', text: 'Hi {{first_name}}' })).body;
    const body = (await fx.tenant.api.get('/account/export')).body;
    expect(body.records.map((record: any) => record.record)).to.deep.equal(['contact', 'group', 'template']);
    expect(body.records[0]).to.include({ id: contact.id, name: 'Anna', phone: CUSTOMER });
    expect(body.records[0]).to.deep.include({ tags: ['vip'], fields: { company: 'ACME' } });
    expect(body.records[1]).to.deep.include({ id: group.id, name: 'Customers', members: [contact.id] });
    expect(body.records[2]).to.include({ id: template.id, name: 'Hi', message: 'Hi {{first_name}}' });
    const csv = (await fx.tenant.api.get('/account/export?format=csv')).body as string;
    expect(csv).to.include(`,Anna,vip,"{""company"":""ACME""}",`);
  });

  it('exports who last wrote to each of its numbers by email (mail senders), by number', async () => {
    const { mail, db } = fx.gateway.services;
    await mail.rememberSender(db, fx.tenant.accountId, '+491701234567', 'Bob@Example.org');
    await mail.rememberSender(db, fx.tenant.accountId, CUSTOMER, 'alice@example.org');
    const other = await fx.newTenant();
    await mail.rememberSender(db, other.accountId, CUSTOMER, 'someone.else@example.org');

    const body = (await fx.tenant.api.get('/account/export')).body;
    expect(body.records.map((record: any) => [record.record, record.id, record.phone, record.email])).to.deep.equal([
      ['mail_sender', null, '+491701234567', 'bob@example.org'],
      ['mail_sender', null, CUSTOMER, 'alice@example.org'],
    ]);
    expect(body.records[0].created_at).to.be.a('string');
    const lines = ((await fx.tenant.api.get('/account/export?format=csv')).body as string).trimEnd().split('\r\n');
    expect(lines.slice(1).map((line) => [line.split(',')[0], line.split(',').at(-1)])).to.deep.equal([
      ['mail_sender', 'bob@example.org'],
      ['mail_sender', 'alice@example.org'],
    ]);
    expect(JSON.stringify(body)).not.to.include('someone.else');
  });

  it('exports the account\'s choice of what of a mail becomes the SMS text', async () => {
    expect((await fx.tenant.api.patch('/account/mail', { text: 'subject' })).status).to.equal(200);
    expect((await fx.tenant.api.get('/account/export')).body.mail).to.deep.equal({ text: 'subject', chosen: true });
  });

  it('exports as CSV with a header, quoting, and formulas made inert', async () => {
    const phone = await traffic();
    await phone.send(CUSTOMER, '=1+1');
    await phone.receive(CUSTOMER, 'a, b');
    const reply = await fx.tenant.api.get('/account/export?format=csv');
    expect(reply.status).to.equal(200);
    expect(reply.headers.get('content-type')).to.match(/^text\/csv/);
    const lines = (reply.body as string).trimEnd().split('\r\n');
    expect(lines[0]).to.equal('record,id,phone,message,status,device_id,sim_slot,unread_count,created_at,redacted_at,name,tags,fields,members,email');
    expect(lines).to.have.length(4);
    expect(lines[1]).to.match(new RegExp(`^sms,[0-9a-f-]{36},\\${CUSTOMER},'=1\\+1,sent,`));
    expect(lines[2]).to.match(/^incoming,[0-9a-f-]{36},\+79005550121,"a, b",,/);
    expect(lines[3]).to.match(/^conversation,/);
    expectError(await fx.tenant.api.get('/account/export?format=xml'), 400, 'validation_failed');
  });

  it('deletes an account with everything in it, only for an administrator who confirms its name', async () => {
    const phone = await traffic();
    await phone.send(CUSTOMER, 'to be deleted');
    await phone.receive(CUSTOMER, 'also deleted');
    const victim = fx.tenant;
    const adminAccount = await fx.newTenant();
    const admin = await userSession(fx.gateway, adminAccount.accountId, 'owner', { isAdmin: true });
    const owner = await userSession(fx.gateway, victim.accountId, 'owner');

    expectError(await owner.delete(`/accounts/${victim.accountId}?confirm=${victim.accountName}`), 403, 'admin_only');
    expectError(await victim.api.delete(`/accounts/${victim.accountId}?confirm=${victim.accountName}`), 403);
    expectError(await admin.delete(`/accounts/${victim.accountId}?confirm=wrong-name`), 400, 'validation_failed');
    expectError(await admin.delete(`/accounts/${victim.accountId}`), 400, 'validation_failed');
    expect((await victim.api.get('/conversations')).body.data).to.have.length(1);

    const closed = new Promise<void>((resolve) => phone.phone.client.once('close', () => resolve()));
    const deleted = await admin.delete(`/accounts/${victim.accountId}?confirm=${victim.accountName}`);
    expect(deleted.status, JSON.stringify(deleted.body)).to.equal(204);
    // Its phone's connection is closed, its key and sessions refused, its rows gone.
    await closed;
    expect([401, 403]).to.include((await victim.api.get('/sms')).status);
    expect([401, 403]).to.include((await owner.get('/sms')).status);
    const db = fx.gateway.services.db;
    for (const table of ['sms', 'incoming_sms', 'conversations', 'devices', 'api_keys', 'users']) {
      expect(await db(table).where({ account_id: victim.accountId }), table).to.deep.equal([]);
    }
    expectError(await admin.delete(`/accounts/${victim.accountId}?confirm=${victim.accountName}`), 404, 'account_not_found');
    expectError(await admin.delete(`/accounts/${adminAccount.accountId}?confirm=${adminAccount.accountName}`), 409, 'cannot_change_self');
  });
});
