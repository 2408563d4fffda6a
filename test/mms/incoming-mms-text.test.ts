// A received MMS's text goes where a received SMS's goes: the opt-out keywords (a STOP sent as a
// text-only MMS, or beside a picture, lists its sender in the transaction that stores the MMS),
// the inbound rules (matched, counted and acted on through the phone and SIM that received it),
// and the inbox (the sender's conversation counts it unread, and its thread shows it as an MMS).
// Phones are raw MQTT clients reporting on their mms topic (QoS 2: resolved once stored).
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import { expectError } from '../support/expectations.ts';
import type { TaskPhone } from '../support/task-phone.ts';
import { ordinaryClients, receive, receivingPhone, suppressed } from '../opt-out/support.ts';

const SENDER = '+79161234567';

/** The phone reports an MMS it received; resolves once the gateway stored it. Answers its id there. */
async function receiveMms(
  phone: TaskPhone,
  from: string,
  text: { message?: string; subject?: string },
  options: { parts?: { id: string; content_type: string; size: number }[]; simSlot?: number } = {},
): Promise<string> {
  const id = randomUUID();
  const report = { id, phone: from, received_at: new Date().toISOString(), sim_slot: options.simSlot ?? 0, parts: options.parts ?? [], ...text };
  await phone.client.publishAsync(deviceTopic(phone.id, 'mms'), JSON.stringify(report), { qos: 2 });
  return id;
}

describe('incoming MMS: their text goes where a received SMS goes', () => {
  const fx = useGateway();

  it('when a text-only MMS says STOP, then its sender is opted out and an ordinary send to it is refused; a STOP beside a picture too', async () => {
    const phone = await receivingPhone(fx);
    const { api } = await ordinaryClients(fx);
    await receiveMms(phone, SENDER, { message: 'STOP' });
    expect(await suppressed(fx.tenant)).to.deep.equal([SENDER]);
    const listed = (await fx.tenant.api.get('/suppressions')).body.data;
    expect(listed[0]).to.deep.include({ phone: SENDER, source: 'keyword', keyword: 'STOP' });
    expectError(await api.post('/sms', { phone: SENDER, message: 'still there?' }), 422, 'recipient_opted_out');

    // Its parts still to come: the keyword holds from the report on.
    await receiveMms(phone, '+79161234568', { message: 'stop', subject: 'photo' }, { parts: [{ id: 'img', content_type: 'image/jpeg', size: 2000 }] });
    expect(await suppressed(fx.tenant)).to.deep.equal([SENDER, '+79161234568']);
    // A sentence is no keyword, whichever way it came.
    await receiveMms(phone, '+79161234569', { message: 'please stop by at noon' });
    expect(await suppressed(fx.tenant)).to.deep.equal([SENDER, '+79161234568']);
  });

  it('when an MMS arrives, then its sender\'s conversation counts it unread and shows it, in the list and in the thread, as an MMS', async () => {
    const phone = await receivingPhone(fx);
    await receive(phone, SENDER, 'Is the red one in stock?');
    const mmsDeviceId = await receiveMms(phone, SENDER, { message: 'This one' }, { parts: [{ id: 'img', content_type: 'image/jpeg', size: 2000 }], simSlot: 1 });
    const mms = (await fx.tenant.api.get('/mms/incoming')).body.data[0];
    expect(mms.device_mms_id).to.equal(mmsDeviceId);

    const conversation = await fx.tenant.api.get(`/conversations/${encodeURIComponent(SENDER)}`);
    expect(conversation.status, JSON.stringify(conversation.body)).to.equal(200);
    expect(conversation.body.unread_count).to.equal(2);
    expect(conversation.body.last_message).to.deep.include({ id: mms.id, direction: 'incoming', kind: 'mms', message: 'This one', device_id: phone.id, sim_slot: 1 });
    expect(conversation.body).to.include({ device_id: phone.id, sim_slot: 1 });

    const thread = (await fx.tenant.api.get(`/conversations/${encodeURIComponent(SENDER)}/messages`)).body.data;
    expect(thread.map((entry: { kind?: string; message: string }) => [entry.kind ?? 'sms', entry.message])).to.deep.equal([
      ['mms', 'This one'],
      ['sms', 'Is the red one in stock?'],
    ]);
    // A subject alone reads as the message.
    await receiveMms(phone, SENDER, { subject: 'Holiday pictures' });
    const newest = (await fx.tenant.api.get(`/conversations/${encodeURIComponent(SENDER)}/messages?limit=1`)).body.data;
    expect(newest[0]).to.include({ kind: 'mms', message: 'Holiday pictures' });
  });

  it('when an MMS\'s text matches inbound rules, then they count it and auto-reply through its phone and SIM; a tag rule among them breaks nothing', async () => {
    const phone = await receivingPhone(fx);
    const tag = await fx.tenant.api.post('/inbound-rules', { match_keyword: 'hours', action: 'tag', tags: ['questions'] });
    const reply = await fx.tenant.api.post('/inbound-rules', { match_keyword: 'hours', action: 'auto_reply', reply_text: 'We are open 9-18.' });
    expect([tag.status, reply.status], JSON.stringify([tag.body, reply.body])).to.deep.equal([201, 201]);
    await receiveMms(phone, SENDER, { message: 'Hours?' }, { simSlot: 1 });
    await phone.until(1);
    expect(phone.tasks[0]).to.deep.include({ phone: SENDER, message: 'We are open 9-18.', sim: 1 });
    expect((await fx.tenant.api.get(`/inbound-rules/${tag.body.id}`)).body.hits).to.equal(1);
    expect((await fx.tenant.api.get(`/inbound-rules/${reply.body.id}`)).body.hits).to.equal(1);
  });
});
