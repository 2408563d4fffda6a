// The official twilio helper library (v5), pointed at the gateway: create, fetch, list with
// paging, cancel and delete, as code written for Twilio does them. An SMS made this way is an
// ordinary SMS: the Extended API lists it and a phone sends it.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { createCredential, messagesPath, twilioClient, twilioRequest } from './support.ts';

const TO = '+79161234567';

describe('twilio: messages through the official helper library', () => {
  const fx = useGateway();

  it('creates a message: Twilio\'s shape, and an ordinary SMS the Extended API shows', async () => {
    const credential = await createCredential(fx.tenant);
    const client = twilioClient(fx.baseUrl, credential);
    const message = await client.messages.create({ to: TO, body: 'hello from twilio-node', from: '+15005550006' });
    expect(message.sid).to.match(/^SM[0-9a-f]{32}$/);
    expect(message.accountSid).to.equal(credential.account_sid);
    expect(message.to).to.equal(TO);
    expect(message.body).to.equal('hello from twilio-node');
    expect(message.status).to.equal('queued');
    expect(message.direction).to.equal('outbound-api');
    expect(message.numSegments).to.equal('1');
    expect(message.price).to.equal(null);
    expect(message.errorCode).to.equal(null);
    expect(message.dateCreated).to.be.instanceOf(Date);
    expect(Math.abs(message.dateCreated.getTime() - Date.now())).to.be.below(5_000);
    expect(message.uri).to.equal(`${messagesPath(credential.account_sid)}/${message.sid}.json`);

    const uuid = message.sid.slice(2).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    const sms = await fx.tenant.api.get(`/sms/${uuid}`);
    expect(sms.status).to.equal(200);
    expect(sms.body).to.include({ phone: TO, message: 'hello from twilio-node', status: 'pending' });
  });

  it('fetches a message; a phone sends it, and its status and date_sent follow', async () => {
    const credential = await createCredential(fx.tenant);
    const client = twilioClient(fx.baseUrl, credential);
    const phone = await fx.connectDevice();
    const created = await client.messages.create({ to: TO, body: 'fetch me' });
    let fetched = await client.messages(created.sid).fetch();
    for (let i = 0; i < 100 && fetched.status !== 'delivered'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      fetched = await client.messages(created.sid).fetch();
    }
    expect(fetched.status).to.equal('delivered');
    expect(fetched.from).to.equal(phone.id);
    expect(fetched.dateSent).to.be.instanceOf(Date);
  });

  it('From names a phone by device id or name; an unknown name is 400 21606', async () => {
    const credential = await createCredential(fx.tenant);
    const client = twilioClient(fx.baseUrl, credential);
    const phone = await fx.connectDevice();
    const device = await fx.gateway.services.devices.get(fx.tenant.accountId, phone.id);
    const byName = await client.messages.create({ to: TO, body: 'by name', from: device.name });
    const byId = await client.messages.create({ to: TO, body: 'by id', from: phone.id });
    for (const sid of [byName.sid, byId.sid]) {
      const uuid = sid.slice(2).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
      expect((await fx.tenant.api.get(`/sms/${uuid}`)).body.device_id).to.equal(phone.id);
    }
    const error = await client.messages.create({ to: TO, body: 'nobody', from: 'no-such-phone' }).catch((e: unknown) => e);
    expect(error).to.include({ status: 400, code: 21606 });
  });

  it('lists messages newest first, page by page, following next_page_uri', async () => {
    const credential = await createCredential(fx.tenant);
    const client = twilioClient(fx.baseUrl, credential);
    const sids: string[] = [];
    for (let i = 0; i < 7; i++) sids.push((await client.messages.create({ to: TO, body: `message ${i}` })).sid);
    const listed = await client.messages.list({ pageSize: 3 });
    expect(listed.map((message) => message.sid)).to.deep.equal([...sids].reverse());

    const first = await client.messages.page({ pageSize: 3 });
    expect(first.instances).to.have.length(3);
    expect(first.nextPageUrl).to.be.a('string');
    const second = await first.nextPage();
    expect(second!.instances.map((message) => message.sid)).to.deep.equal([...sids].reverse().slice(3, 6));

    const raw = await twilioRequest(fx.baseUrl, 'GET', `${messagesPath(credential.account_sid)}.json?PageSize=3`, { sid: credential.account_sid, token: credential.auth_token });
    expect(raw.body).to.include({ page: 0, page_size: 3, previous_page_uri: null });
    expect(raw.body.first_page_uri).to.equal(`${messagesPath(credential.account_sid)}.json?PageSize=3&Page=0`);
    expect(raw.body.uri).to.equal(raw.body.first_page_uri);
    expect(raw.body.next_page_uri).to.match(/Page=1&PageToken=/);
  });

  it('filters by To and DateSent', async () => {
    const credential = await createCredential(fx.tenant);
    const client = twilioClient(fx.baseUrl, credential);
    await client.messages.create({ to: TO, body: 'to the first' });
    await client.messages.create({ to: '+79161234568', body: 'to the second' });
    const toFirst = await client.messages.list({ to: TO });
    expect(toFirst.map((message) => message.body)).to.deep.equal(['to the first']);
    const today = await client.messages.list({ dateSent: new Date() });
    expect(today).to.have.length(2);
    const yesterday = await client.messages.list({ dateSent: new Date(Date.now() - 86_400_000 * 2) });
    expect(yesterday).to.have.length(0);
  });

  it('cancels a message no phone has taken (status canceled), then deletes it', async () => {
    const credential = await createCredential(fx.tenant);
    const client = twilioClient(fx.baseUrl, credential);
    const created = await client.messages.create({ to: TO, body: 'never mind' });
    const cancelled = await client.messages(created.sid).update({ status: 'canceled' });
    expect(cancelled.status).to.equal('canceled');
    expect((await client.messages(created.sid).fetch()).status).to.equal('canceled');
    expect(await client.messages(created.sid).remove()).to.equal(true);
    const gone = await client.messages(created.sid).fetch().catch((e: unknown) => e);
    expect(gone).to.include({ status: 404, code: 20404 });
  });

  it('schedules with SendAt and ScheduleType=fixed (status scheduled), and ValidityPeriod sets valid_until', async () => {
    const credential = await createCredential(fx.tenant);
    const client = twilioClient(fx.baseUrl, credential);
    const sendAt = new Date(Date.now() + 3_600_000);
    const scheduled = await client.messages.create({ to: TO, body: 'later', sendAt, scheduleType: 'fixed', validityPeriod: 600 });
    expect(scheduled.status).to.equal('scheduled');
    const uuid = scheduled.sid.slice(2).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    const sms = (await fx.tenant.api.get(`/sms/${uuid}`)).body;
    expect(new Date(sms.send_at).getTime()).to.equal(Math.floor(sendAt.getTime() / 1000) * 1000);
    expect(new Date(sms.valid_until).getTime() - new Date(sms.send_at).getTime()).to.equal(600_000);
  });

  it('I-Twilio-Idempotency-Token makes a retried create answer the first message', async () => {
    const credential = await createCredential(fx.tenant);
    const send = () =>
      fetch(`${fx.baseUrl}${messagesPath(credential.account_sid)}.json`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${credential.account_sid}:${credential.auth_token}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          'i-twilio-idempotency-token': 'retry-1',
        },
        body: new URLSearchParams({ To: TO, Body: 'once' }).toString(),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as { sid: string } }));
    const first = await send();
    const again = await send();
    expect(first.status).to.equal(201);
    expect(again.body.sid).to.equal(first.body.sid);
    expect((await fx.tenant.api.get('/sms')).body.data).to.have.length(1);
  });

  it('another account\'s message is 404 20404', async () => {
    const credential = await createCredential(fx.tenant);
    const created = await twilioClient(fx.baseUrl, credential).messages.create({ to: TO, body: 'mine' });
    const other = await createCredential(await fx.newTenant());
    const error = await twilioClient(fx.baseUrl, other).messages(created.sid).fetch().catch((e: unknown) => e);
    expect(error).to.include({ status: 404, code: 20404 });
  });
});
