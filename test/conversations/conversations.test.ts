// Conversations: one per remote number, built from the SMS the account sends (through a real
// phone on the broker) and the SMS its phones receive, with unread counts, mark read, a merged
// thread both ways, paging, tenancy, and the phone and SIM a reply goes through.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import { UNPACED, type TaskPhone } from '../support/task-phone.ts';
import { expectError } from '../support/expectations.ts';
import { eventually } from '../support/eventually.ts';
import type { SmsRecord } from '../../src/modules/messages/types.ts';
import { backfillConversations } from '../../db/migrations/20261129_026_conversations_contacts.ts';
import { removeConversationsOf } from '../support/test-data.ts';
import { encrypt } from '../../src/common/end-to-end.ts';

const CUSTOMER = '+79005550101';
const OTHER = '+79005550102';

describe('conversations', () => {
  const fx = useGateway();

  async function phone(): Promise<TaskPhone> {
    return fx.taskPhone({ ...UNPACED, forward_incoming_sms: true });
  }

  /** How many SMS each phone was sent through send(): the task count to wait for. */
  const sent = new Map<TaskPhone, number>();

  /** Sends through `via` and waits until the phone was handed it and reported it sent. */
  async function send(via: TaskPhone, to: string, message: string, extra: Record<string, unknown> = {}): Promise<string> {
    const created = await fx.tenant.api.request('POST', '/sms', { phone: to, message, device_id: via.id, ...extra }, { 'idempotency-key': randomUUID() });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const sends = (sent.get(via) ?? 0) + 1;
    sent.set(via, sends);
    await via.settle();
    await via.until(sends);
    await via.sendAll();
    return created.body.id as string;
  }

  /** The phone forwards an SMS it received (QoS 2: resolved once the gateway stored it). */
  async function receive(via: TaskPhone, from: string, message: string, simSlot = 1): Promise<void> {
    const payload = { id: randomUUID(), phone: from, message, received_at: new Date().toISOString(), sim_slot: simSlot };
    await via.client.publishAsync(deviceTopic(via.id, 'incoming'), JSON.stringify(payload), { qos: 2 });
  }

  it('builds one conversation per number from sent and received SMS, with its unread count and newest message', async () => {
    const device = await phone();
    const sentId = await send(device, CUSTOMER, 'Your order has shipped', { sim_slot: 0 });
    await receive(device, CUSTOMER, 'Thanks! When does it arrive?');
    await receive(device, CUSTOMER, 'Hello?');

    const list = await fx.tenant.api.get('/conversations');
    expect(list.status, JSON.stringify(list.body)).to.equal(200);
    expect(list.body.next_cursor).to.equal(null);
    expect(list.body.data).to.have.length(1);
    const [conversation] = list.body.data;
    expect(conversation.phone).to.equal(CUSTOMER);
    expect(conversation.unread_count).to.equal(2);
    expect(conversation.read_at).to.equal(null);
    expect(conversation.last_message).to.include({ direction: 'incoming', message: 'Hello?', status: null, device_id: device.id, sim_slot: 1, redacted: false });
    // A reply goes through the phone and SIM of the newest message.
    expect(conversation).to.include({ device_id: device.id, sim_slot: 1 });

    const thread = await fx.tenant.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}/messages`);
    expect(thread.status).to.equal(200);
    expect(thread.body.data.map((entry: any) => [entry.direction, entry.message])).to.deep.equal([
      ['incoming', 'Hello?'],
      ['incoming', 'Thanks! When does it arrive?'],
      ['outgoing', 'Your order has shipped'],
    ]);
    expect(thread.body.data[2]).to.include({ id: sentId, status: 'sent', device_id: device.id, sim_slot: 0 });
  });

  it('pages a thread both ways without repeating or losing a message', async () => {
    const device = await phone();
    await send(device, CUSTOMER, 'out 1');
    await receive(device, CUSTOMER, 'in 1');
    await send(device, CUSTOMER, 'out 2');
    await receive(device, CUSTOMER, 'in 2');
    await send(device, CUSTOMER, 'out 3');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const reply: any = await fx.tenant.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}/messages?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.data.length).to.be.at.most(2);
      seen.push(...reply.body.data.map((entry: any) => entry.message));
      cursor = reply.body.next_cursor;
    } while (cursor);
    expect(seen).to.deep.equal(['out 3', 'in 2', 'out 2', 'in 1', 'out 1']);
  });

  it('lists conversations by last activity, newest first, paged, and only the unread ones when asked', async () => {
    const device = await phone();
    await receive(device, CUSTOMER, 'first');
    await receive(device, OTHER, 'second');
    await send(device, CUSTOMER, 'reply to the first');

    const first = await fx.tenant.api.get('/conversations?limit=1');
    expect(first.body.data.map((c: any) => c.phone)).to.deep.equal([CUSTOMER]);
    expect(first.body.next_cursor).to.be.a('string');
    const second = await fx.tenant.api.get(`/conversations?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((c: any) => c.phone)).to.deep.equal([OTHER]);
    expect(second.body.next_cursor).to.equal(null);

    const read = await fx.tenant.api.post(`/conversations/${encodeURIComponent(OTHER)}/read`);
    expect(read.status).to.equal(200);
    const unread = await fx.tenant.api.get('/conversations?unread=true');
    expect(unread.body.data.map((c: any) => c.phone)).to.deep.equal([CUSTOMER]);
  });

  it('marks a conversation read, and counts SMS received afterwards again', async () => {
    const device = await phone();
    await receive(device, CUSTOMER, 'one');
    await receive(device, CUSTOMER, 'two');
    const read = await fx.tenant.api.post(`/conversations/${encodeURIComponent(CUSTOMER)}/read`);
    expect(read.status, JSON.stringify(read.body)).to.equal(200);
    expect(read.body.unread_count).to.equal(0);
    expect(Date.parse(read.body.read_at)).to.be.a('number').and.not.NaN;
    await receive(device, CUSTOMER, 'three');
    expect((await fx.tenant.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}`)).body.unread_count).to.equal(1);
    // A repeated report of the same received SMS is stored once, and counted once.
    const payload = JSON.stringify({ id: 'repeat-1', phone: CUSTOMER, message: 'four', received_at: new Date().toISOString() });
    await device.client.publishAsync(deviceTopic(device.id, 'incoming'), payload, { qos: 2 });
    await device.client.publishAsync(deviceTopic(device.id, 'incoming'), payload, { qos: 2 });
    expect((await fx.tenant.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}`)).body.unread_count).to.equal(2);
  });

  it('replies through the phone and SIM the conversation uses', async () => {
    const first = await phone();
    const second = await phone();
    await receive(second, CUSTOMER, 'question', 1);
    const conversation = (await fx.tenant.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}`)).body;
    expect(conversation).to.include({ device_id: second.id, sim_slot: 1 });

    const reply = await fx.tenant.api.post('/sms', { phone: conversation.phone, message: 'answer', device_id: conversation.device_id, sim_slot: conversation.sim_slot });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    await second.settle();
    await second.until(1);
    expect(second.tasks[0]).to.include({ sms_id: reply.body.id, phone: CUSTOMER, message: 'answer', sim: 1 });
    await first.settle();
    expect(first.total).to.equal(0);
    // The thread reads the SMS tables themselves: the reply is there as soon as it was created.
    const thread = await fx.tenant.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}/messages`);
    expect(thread.body.data.map((entry: any) => entry.message)).to.deep.equal(['answer', 'question']);
  });

  it('records an SMS written by the coalesced insert (no Idempotency-Key) once it commits, and a bulk send in its transaction', async () => {
    const created = await fx.tenant.api.post('/sms', { phone: CUSTOMER, message: 'plain send' });
    expect(created.status).to.equal(201);
    // No transaction of its own: the conversation moves just after the commit.
    const conversation = await eventually('the conversation of a plain send', async () => {
      const reply = await fx.tenant.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}`);
      return reply.status === 200 ? reply.body : undefined;
    });
    expect(conversation.last_message).to.include({ id: created.body.id, direction: 'outgoing', message: 'plain send', status: 'pending', device_id: null });
    expect(conversation).to.include({ unread_count: 0, device_id: null, sim_slot: null });

    // A bulk send writes in one transaction: its conversations are there when it answers.
    const bulk = await fx.tenant.api.post('/sms/bulk', { messages: [{ phone: OTHER, message: 'bulk 1' }, { phone: OTHER, message: 'bulk 2' }] });
    expect(bulk.status).to.equal(201);
    const other = await fx.tenant.api.get(`/conversations/${encodeURIComponent(OTHER)}`);
    expect(other.status).to.equal(200);
    expect(other.body.last_message.id).to.be.oneOf(bulk.body.data.map((sms: any) => sms.id));
    expect((await fx.tenant.api.get(`/conversations/${encodeURIComponent(OTHER)}/messages`)).body.data).to.have.length(2);
  });

  it('moves a conversation to the newest of a burst of plain sends to its number', async () => {
    const number = '+79160000123';
    const sent = await Promise.all(Array.from({ length: 20 }, (_, i) => fx.tenant.api.post('/sms', { phone: number, message: `burst ${i}` })));
    for (const reply of sent) expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    // sent_at: when each was created. Several may share the newest millisecond: any of them will do.
    const newestAt = Math.max(...sent.map((reply) => Date.parse(reply.body.sent_at)));
    const newest = sent.filter((reply) => Date.parse(reply.body.sent_at) === newestAt).map((reply) => reply.body.id);
    expect(newest).to.not.be.empty;
    const conversation = await eventually('the conversation at the newest SMS', async () => {
      const reply = await fx.tenant.api.get(`/conversations/${encodeURIComponent(number)}`);
      return reply.status === 200 && newest.includes(reply.body.last_message.id) ? reply.body : undefined;
    });
    expect(conversation.last_message).to.include({ direction: 'outgoing' });
    expect((await fx.tenant.api.get(`/conversations/${encodeURIComponent(number)}/messages?limit=100`)).body.data).to.have.length(20);
  });

  it('moves the other conversations of a write in which one row fails for good (its account deleted just before)', async () => {
    // Two sends heard after commit in the same moment share one write. One names an account that
    // no longer exists, so its row breaks the foreign key: the write is split until that row is
    // alone, and the other send's conversation still moves.
    const queued = fx.gateway.services.conversations.smsQueued.committed!;
    const number = '+79160000456';
    const at = new Date();
    const send = (accountId: string) => ({ id: randomUUID(), account_id: accountId, phone: number, created_at: at }) as unknown as SmsRecord;
    const kept = send(fx.tenant.accountId);
    queued(send(randomUUID()));
    queued(kept);
    const row = await eventually('the conversation moved', async () =>
      fx.gateway.services.conversations.get(fx.tenant.accountId, number).catch(() => undefined));
    expect(row.last_sms_id).to.equal(kept.id);
  });

  it('gives the history from before conversations existed its conversations, read, once (the migration\'s backfill)', async () => {
    const device = await phone();
    const sentId = await send(device, CUSTOMER, 'old out', { sim_slot: 0 });
    await receive(device, CUSTOMER, 'old in');
    await send(device, OTHER, 'other out');
    const { db } = fx.gateway.services;
    await removeConversationsOf(fx, fx.tenant.accountId);

    await backfillConversations(db);
    await backfillConversations(db);
    const list = (await fx.tenant.api.get('/conversations')).body.data;
    expect(list.map((conversation: any) => conversation.phone)).to.have.members([CUSTOMER, OTHER]);
    const customer = list.find((conversation: any) => conversation.phone === CUSTOMER);
    expect(customer).to.include({ unread_count: 0, device_id: device.id });
    expect(customer.last_message).to.include({ direction: 'incoming', message: 'old in' });
    const thread = (await fx.tenant.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}/messages`)).body.data;
    expect(thread.map((entry: any) => entry.id)).to.include(sentId);
  });

  it('marks a data SMS in the thread as kind data, its message empty', async () => {
    const sent = await fx.tenant.api.request('POST', '/sms/data', { phone: CUSTOMER, data: '3q2+7w==', port: 16001 }, { 'idempotency-key': randomUUID() });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    const thread = await fx.tenant.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}/messages`);
    expect(thread.body.data).to.have.length(1);
    expect(thread.body.data[0]).to.include({ id: sent.body.id, direction: 'outgoing', kind: 'data', message: '' });
    expect((await fx.tenant.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}`)).body.last_message).to.include({ kind: 'data' });
  });

  it('keeps end-to-end encrypted SMS out of conversations either way: their numbers are ciphertext, new with every SMS', async () => {
    const device = await phone();
    const sealed = (text: string) => encrypt(text, 'shared by the client and its phones', { iterations: 10_000 });
    // One written in the transaction of its Idempotency-Key, one by the coalesced insert.
    for (const headers of [{ 'idempotency-key': randomUUID() }, {}] as Record<string, string>[]) {
      const created = await fx.tenant.api.request('POST', '/sms/encrypted', { phone: await sealed(CUSTOMER), message: await sealed('door code 2580') }, headers);
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
    }
    const received = { id: randomUUID(), phone: await sealed(CUSTOMER), message: await sealed('see you'), received_at: new Date().toISOString(), sim_slot: 0, is_encrypted: true };
    await device.client.publishAsync(deviceTopic(device.id, 'incoming'), JSON.stringify(received), { qos: 2 });
    expect((await fx.tenant.api.get('/incoming')).body.data).to.have.length(1);

    // A plain send written after them by the same coalesced insert: once it shows, they would have.
    const plain = await fx.tenant.api.post('/sms', { phone: OTHER, message: 'plain' });
    expect(plain.status).to.equal(201);
    await eventually('the conversation of the plain send', async () => (await fx.tenant.api.get(`/conversations/${encodeURIComponent(OTHER)}`)).status === 200 || undefined);
    const list = (await fx.tenant.api.get('/conversations')).body.data;
    expect(list.map((conversation: any) => conversation.phone)).to.deep.equal([OTHER]);
  });

  it('never shows another account\'s conversations, and answers 404 for a number with none', async () => {
    const device = await phone();
    await receive(device, CUSTOMER, 'private');
    const other = await fx.newTenant();
    expect((await other.api.get('/conversations')).body.data).to.deep.equal([]);
    expectError(await other.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}/messages`), 404, 'conversation_not_found');
    expectError(await other.api.post(`/conversations/${encodeURIComponent(CUSTOMER)}/read`), 404, 'conversation_not_found');
    expectError(await fx.tenant.api.get('/conversations?cursor=nonsense'), 400, 'validation_failed');
    expectError(await fx.tenant.api.get('/conversations?limit=0'), 400, 'validation_failed');
    expectError(await fx.tenant.api.get('/conversations?unread=maybe'), 400, 'validation_failed');
    expectError(await fx.tenant.api.get(`/conversations/%2B7900${'5'.repeat(80)}/messages`), 400, 'validation_failed');
    expect((await fx.tenant.api.get('/conversations/%2B7900%00/messages')).status).to.equal(400);
    // A number never written to or heard from, in any spelling, is no conversation.
    expectError(await fx.tenant.api.get('/conversations/not-a-number'), 404, 'conversation_not_found');
  });
});
