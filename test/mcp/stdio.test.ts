// `sms-gateway mcp`: an assistant's session over stdio with the SDK's own client, against a real
// gateway. Each tool is called and its effect checked through the Extended API; a key's missing
// permission comes back as a tool error naming it, with nothing done.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import { UNPACED } from '../support/task-phone.ts';
import { McpSession } from '../support/mcp-client.ts';

const TOOLS = ['cancel_sms', 'get_conversation', 'get_sms', 'list_conversations', 'list_devices', 'list_incoming', 'list_sms', 'send_sms'];
const CUSTOMER = '+79005550101';
const OTHER = '+79005550102';
const textOf = McpSession.textOf;

describe('MCP server over stdio (sms-gateway mcp)', function () {
  // The first start of the command may compile dist/.
  this.timeout(180_000);
  const fx = useGateway();

  async function session(key = fx.tenant.key): Promise<McpSession> {
    const opened = await McpSession.overStdio(fx.baseUrl, key);
    fx.onCleanup(() => opened.stop());
    return opened;
  }

  it('lists the tools, each with a description and an input schema', async () => {
    const mcp = await session();
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).to.deep.equal(TOOLS);
    for (const tool of tools) {
      expect(tool.description, tool.name).to.be.a('string').with.length.above(20);
      expect(tool.inputSchema.type, tool.name).to.equal('object');
    }
    const send = tools.find((tool) => tool.name === 'send_sms')!;
    expect(send.inputSchema.properties).to.include.keys('phone', 'phones', 'message', 'device_id', 'sim_slot', 'send_at');
    expect(mcp.stderr).not.to.contain(fx.tenant.key);
  });

  it('sends, reads, lists and cancels SMS, and shows devices, received SMS and conversations', async () => {
    const phone = await fx.taskPhone({ ...UNPACED, forward_incoming_sms: true });
    const mcp = await session();

    // send_sms: one recipient, through the phone; the API shows the SMS it created.
    const sent = await mcp.call('send_sms', { phone: CUSTOMER, message: 'Your order has shipped', device_id: phone.id });
    expect(sent.isError, textOf(sent)).to.not.equal(true);
    const id = sent.structuredContent.id as string;
    expect(textOf(sent)).to.contain(id).and.contain('pending');
    const viaApi = await fx.tenant.api.get(`/sms/${id}`);
    expect(viaApi.status).to.equal(200);
    expect(viaApi.body).to.include({ phone: CUSTOMER, message: 'Your order has shipped', device_id: phone.id });

    // send_sms: several recipients, scheduled an hour ahead so no phone takes them yet.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const bulk = await mcp.call('send_sms', { phones: [OTHER, '+79005550103'], message: 'Reminder', send_at: later });
    expect(bulk.isError, textOf(bulk)).to.not.equal(true);
    const bulkIds = (bulk.structuredContent.data as any[]).map((sms) => sms.id as string);
    expect(bulkIds).to.have.length(2);
    expect(textOf(bulk)).to.contain('Queued 2 SMS');

    // get_sms: the one sent, with its history.
    const got = await mcp.call('get_sms', { id });
    expect(got.isError, textOf(got)).to.not.equal(true);
    expect(got.structuredContent).to.include({ id, phone: CUSTOMER });
    expect(got.structuredContent.history).to.be.an('array').that.is.not.empty;
    expect(textOf(got)).to.contain('Your order has shipped');

    // list_sms: all three, then filtered by recipient, then paged.
    const all = await mcp.call('list_sms', {});
    expect((all.structuredContent.data as any[]).map((sms) => sms.id)).to.have.members([id, ...bulkIds]);
    const toCustomer = await mcp.call('list_sms', { phone: CUSTOMER });
    expect((toCustomer.structuredContent.data as any[]).map((sms) => sms.id)).to.deep.equal([id]);
    const first = await mcp.call('list_sms', { limit: 2 });
    expect(first.structuredContent.data).to.have.length(2);
    expect(first.structuredContent.next_cursor).to.be.a('string');
    expect(textOf(first)).to.contain(first.structuredContent.next_cursor);
    const second = await mcp.call('list_sms', { limit: 2, cursor: first.structuredContent.next_cursor });
    expect(second.structuredContent.data).to.have.length(1);

    // cancel_sms: a scheduled SMS ends as failed_send, cancelled; the API agrees.
    const cancelled = await mcp.call('cancel_sms', { id: bulkIds[0] });
    expect(cancelled.isError, textOf(cancelled)).to.not.equal(true);
    expect(cancelled.structuredContent).to.include({ id: bulkIds[0], status: 'failed_send', reason: 'cancelled' });
    expect((await fx.tenant.api.get(`/sms/${bulkIds[0]}`)).body).to.include({ status: 'failed_send', reason: 'cancelled' });

    // list_devices: the connected phone with its state.
    const devices = await mcp.call('list_devices', {});
    const listed = (devices.structuredContent.data as any[]).find((device) => device.id === phone.id);
    expect(listed, textOf(devices)).to.include({ is_online: true });
    expect(textOf(devices)).to.contain(phone.id).and.contain('online').and.contain('battery').and.contain('signal').and.contain('not paused');

    // list_incoming: an SMS the phone received and reported.
    await phone.client.publishAsync(
      deviceTopic(phone.id, 'incoming'),
      JSON.stringify({ id: randomUUID(), phone: CUSTOMER, message: 'Thanks, when does it arrive?', received_at: new Date().toISOString(), sim_slot: 0 }),
      { qos: 2 },
    );
    const incoming = await mcp.call('list_incoming', {});
    expect(incoming.structuredContent.data).to.have.length(1);
    expect(incoming.structuredContent.data[0]).to.include({ phone: CUSTOMER, message: 'Thanks, when does it arrive?', device_id: phone.id });
    expect(textOf(incoming)).to.contain('Thanks, when does it arrive?');

    // list_conversations / get_conversation: the customer's thread holds both directions.
    const conversations = await mcp.call('list_conversations', {});
    const withCustomer = (conversations.structuredContent.data as any[]).find((conversation) => conversation.phone === CUSTOMER);
    expect(withCustomer, textOf(conversations)).to.include({ unread_count: 1 });
    const unreadOnly = await mcp.call('list_conversations', { unread: true });
    expect((unreadOnly.structuredContent.data as any[]).map((conversation) => conversation.phone)).to.deep.equal([CUSTOMER]);
    const thread = await mcp.call('get_conversation', { phone: CUSTOMER });
    expect(thread.isError, textOf(thread)).to.not.equal(true);
    expect((thread.structuredContent.data as any[]).map((message) => [message.direction, message.message])).to.deep.equal([
      ['incoming', 'Thanks, when does it arrive?'],
      ['outgoing', 'Your order has shipped'],
    ]);
    expect(mcp.stderr).not.to.contain(fx.tenant.key);
  });

  it('answers what the API refuses as a tool error: a missing permission is named and nothing is done', async () => {
    const readOnly = await fx.keyWith(['sms:read']);
    const mcp = await session(readOnly.key!);
    const refused = await mcp.call('send_sms', { phone: CUSTOMER, message: 'Should not be sent' });
    expect(refused.isError).to.equal(true);
    expect(textOf(refused)).to.contain('sms:send');
    expect(refused.structuredContent.error).to.include({ status: 403, code: 'forbidden', missing_permission: 'sms:send' });
    expect((await fx.tenant.api.get('/sms')).body.data).to.deep.equal([]);

    const devices = await mcp.call('list_devices', {});
    expect(devices.isError).to.equal(true);
    expect(textOf(devices)).to.contain('devices:read');

    // A read the key may do still works in the same session.
    const listed = await mcp.call('list_sms', {});
    expect(listed.isError, textOf(listed)).to.not.equal(true);
  });

  it('answers a bad argument or an unknown SMS as a tool error, not a crash', async () => {
    const mcp = await session();
    const both = await mcp.call('send_sms', { phone: CUSTOMER, phones: [OTHER], message: 'x' });
    expect(both.isError).to.equal(true);
    expect(textOf(both)).to.contain('exactly one of phone');
    const invalidPhone = await mcp.call('send_sms', { phone: 'not a number', message: 'x' });
    expect(invalidPhone.isError).to.equal(true);
    expect(textOf(invalidPhone)).to.contain('400');
    const unknown = await mcp.call('get_sms', { id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.isError).to.equal(true);
    expect(textOf(unknown)).to.contain('sms_not_found');
    const malformed = await mcp.call('get_sms', { id: 'nope' });
    expect(malformed.isError).to.equal(true);
    expect((await fx.tenant.api.get('/sms')).body.data).to.deep.equal([]);
    // The session still works after all that.
    expect((await mcp.call('list_sms', {})).isError).to.not.equal(true);
  });
});
