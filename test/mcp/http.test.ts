// The MCP endpoint on the gateway itself (streamable HTTP, stateless): the SDK's own client with
// the key as a Bearer token. The tools act with that key: what it may not do is refused, naming
// the permission; a missing or unknown key never reaches the tools.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { McpSession } from '../support/mcp-client.ts';

const CUSTOMER = '+79005550101';
const textOf = McpSession.textOf;

describe('MCP endpoint over streamable HTTP (/api/ext/v1/mcp)', () => {
  const fx = useGateway();

  const endpoint = () => `${fx.baseUrl}/api/ext/v1/mcp`;

  async function session(key: string): Promise<McpSession> {
    const opened = await McpSession.overHttp(endpoint(), key);
    fx.onCleanup(() => opened.stop());
    return opened;
  }

  it('lists the tools and acts with the request\'s key: send, read, devices', async () => {
    const device = await fx.registerDevice('shop phone');
    const mcp = await session(fx.tenant.key);
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).to.include.members(['send_sms', 'list_sms', 'get_sms', 'cancel_sms', 'list_devices', 'list_incoming', 'list_conversations', 'get_conversation']);

    const sent = await mcp.call('send_sms', { phone: CUSTOMER, message: 'Sent over HTTP MCP', send_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(sent.isError, textOf(sent)).to.not.equal(true);
    const id = sent.structuredContent.id as string;
    expect((await fx.tenant.api.get(`/sms/${id}`)).body).to.include({ phone: CUSTOMER, message: 'Sent over HTTP MCP' });

    const got = await mcp.call('get_sms', { id });
    expect(got.structuredContent).to.include({ id, status: 'pending' });
    const devices = await mcp.call('list_devices', {});
    expect((devices.structuredContent.data as any[]).map((row) => row.id)).to.deep.equal([device.device.id]);
    const cancelled = await mcp.call('cancel_sms', { id });
    expect(cancelled.structuredContent).to.include({ status: 'failed_send', reason: 'cancelled' });
  });

  it('sees only the key\'s account', async () => {
    await fx.tenant.api.post('/sms', { phone: CUSTOMER, message: 'mine', send_at: new Date(Date.now() + 3_600_000).toISOString() });
    const other = await fx.newTenant();
    const mcp = await session(other.key);
    const listed = await mcp.call('list_sms', {});
    expect(listed.structuredContent.data).to.deep.equal([]);
  });

  it('refuses a tool the key lacks the permission for, naming it, and creates nothing', async () => {
    const readOnly = await fx.keyWith(['sms:read']);
    const mcp = await session(readOnly.key!);
    const refused = await mcp.call('send_sms', { phone: CUSTOMER, message: 'no' });
    expect(refused.isError).to.equal(true);
    expect(textOf(refused)).to.contain('sms:send');
    expect(refused.structuredContent.error).to.include({ missing_permission: 'sms:send' });
    expect((await fx.tenant.api.get('/sms')).body.data).to.deep.equal([]);
  });

  it('answers 401 without a key or with an unknown one, before any tool runs', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(endpoint(), { method: 'POST', headers, body: initialize });
    expect(none.status).to.equal(401);
    expect(none.headers.get('www-authenticate')).to.contain('Bearer');
    expect(((await none.json()) as any).error.code).to.equal('unauthorized');
    const unknown = await fetch(endpoint(), {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer sgw_0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ' },
      body: initialize,
    });
    expect(unknown.status).to.equal(401);
    await expectRejects(McpSession.overHttp(endpoint(), 'sgw_0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ'));
  });

  it('refuses a body over BODY_LIMIT (413) and one that is not JSON (400), as every API route does', async () => {
    const headers = { authorization: `Bearer ${fx.tenant.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { padding: 'x'.repeat(2 * 1024 * 1024) } });
    const tooLarge = await fetch(endpoint(), { method: 'POST', headers, body: huge });
    expect(tooLarge.status).to.equal(413);
    const malformed = await fetch(endpoint(), { method: 'POST', headers, body: '{"jsonrpc":' });
    expect(malformed.status).to.equal(400);
    expect(((await malformed.json()) as any).error.code).to.equal('invalid_json');
  });

  it('answers params of the wrong shape as -32602 Invalid params, not as an internal error, and runs none of a batch that holds them; an empty batch is -32600', async () => {
    const headers = { authorization: `Bearer ${fx.tenant.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const call = (id: number, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });
    for (const params of [{ name: 1 }, { name: 'list_sms', arguments: 'not an object' }, 'no params object']) {
      const response = await fetch(endpoint(), { method: 'POST', headers, body: JSON.stringify(call(7, params)) });
      expect(response.status).to.equal(200);
      const answer = (await response.json()) as any;
      expect(answer.id).to.equal(7);
      expect(answer.error.code, JSON.stringify(answer)).to.equal(-32602);
    }
    const batch = await fetch(endpoint(), {
      method: 'POST',
      headers,
      body: JSON.stringify([call(1, { name: 'send_sms', arguments: { phone: CUSTOMER, message: 'never sent' } }), call(2, { name: 2 })]),
    });
    expect(batch.status).to.equal(400);
    expect(((await batch.json()) as any).error.code).to.equal(-32602);
    expect((await fx.tenant.api.get('/sms')).body.data).to.deep.equal([]);
    const empty = await fetch(endpoint(), { method: 'POST', headers, body: '[]' });
    expect(empty.status).to.equal(400);
    expect(((await empty.json()) as any).error.code).to.equal(-32600);
  });

  it('answers GET (no server-sent stream in stateless mode) with 405', async () => {
    const response = await fetch(endpoint(), { headers: { authorization: `Bearer ${fx.tenant.key}`, accept: 'text/event-stream' } });
    expect(response.status).to.equal(405);
    expect(response.headers.get('allow')).to.equal('POST');
  });
});

async function expectRejects(promise: Promise<unknown>): Promise<void> {
  try {
    await promise;
  } catch {
    return;
  }
  throw new Error('expected a rejection');
}
