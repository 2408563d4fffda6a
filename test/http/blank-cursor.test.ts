// A blank cursor, on every cursor-paged list the Extended API documents: a 400 that says it is
// blank, never the first page. A client that fills in the previous page's next_cursor sends it
// blank when there was none (the last page); read as the first page, it would page forever.
import { expect } from 'chai';
import { BLANK_CURSOR, NULL_CURSOR } from '../../src/storage/paging.ts';
import { useGateway } from '../support/use-gateway.ts';
import { expectError } from '../support/expectations.ts';
import { userSession } from '../support/session-client.ts';
import type { Reply } from '../support/tenant.ts';
import { webhookConfig } from '../support/webhooks.ts';

const PREFIX = '/api/ext/v1';

type Operation = { parameters?: { name: string; in: string }[] };

function expectBlankCursor(reply: Reply, list: string): void {
  expectError(reply, 400, 'validation_failed');
  expect(reply.body.error.message, `${list}: ${JSON.stringify(reply.body)}`).to.equal(BLANK_CURSOR);
  expect(reply.body.error.details).to.deep.equal([{ field: 'cursor', in: 'query', message: BLANK_CURSOR }]);
}

describe('a blank cursor on the paged lists', function () {
  this.timeout(30_000);
  const fx = useGateway({ tenant: 'once', config: { webhooks: webhookConfig() } });

  /** The Extended API's GET paths that take a cursor, as the served document lists them. */
  async function cursorPagedLists(): Promise<string[]> {
    const document = (await (await fetch(`${fx.baseUrl}${PREFIX}/openapi.json`)).json()) as { paths: Record<string, { get?: Operation }> };
    return Object.entries(document.paths)
      .filter(([path, item]) => path.startsWith(`${PREFIX}/`) && item.get?.parameters?.some((parameter) => parameter.in === 'query' && parameter.name === 'cursor'))
      .map(([path]) => path.slice(PREFIX.length));
  }

  it('then every list answers 400 saying the cursor is blank, empty or spaces alike', async () => {
    const { device } = await fx.registerDevice('paged');
    const webhook = await fx.tenant.api.post('/webhooks', { url: (await fx.receiver()).url, events: ['sms.status_changed'] });
    expect(webhook.status, JSON.stringify(webhook.body)).to.equal(201);
    // What each path's {id} names: the device of its USSD sessions, the webhook of its deliveries.
    const idOf = (list: string) => (list.startsWith('/webhooks/') ? webhook.body.webhook.id : device.id);
    const admin = await userSession(fx.gateway, fx.tenant.accountId, 'owner', { isAdmin: true });
    const customer = '+79161234567';
    // An SMS to a number opens the conversation with it.
    expect((await fx.tenant.api.post('/sms', { phone: customer, message: 'hello' })).status).to.equal(201);
    const lists = await cursorPagedLists();
    expect(lists).to.include.members(['/sms', '/devices', '/accounts', '/conversations/{phone}/messages', '/devices/{id}/ussd', '/webhooks/{id}/deliveries']);
    for (const list of lists) {
      const path = list.replace('{id}', idOf(list)).replace('{phone}', encodeURIComponent(customer));
      // The accounts are the instance administrator's, read with a session rather than a key.
      const get = (query: string) => (list === '/accounts' ? admin.get(`${path}?${query}`) : fx.tenant.api.get(`${path}?${query}`));
      expectBlankCursor(await get('cursor='), list);
      expectBlankCursor(await get('cursor=%20%20'), list);
      const first = await get('');
      expect(first.status, `${list}: ${JSON.stringify(first.body)}`).to.equal(200);
    }
  });

  it('then a cursor written as the word null (a generated client filling in a null next_cursor) is a 400 that says what a cursor is', async () => {
    for (const word of ['null', 'undefined']) {
      const reply = await fx.tenant.api.get(`/sms?cursor=${word}`);
      expectError(reply, 400, 'validation_failed');
      expect(reply.body.error.message).to.equal(NULL_CURSOR(word)).and.to.contain('next_cursor of a previous page');
      expect(reply.body.error.details).to.deep.equal([{ field: 'cursor', in: 'query', message: NULL_CURSOR(word) }]);
    }
    const stranger = await fx.tenant.api.get('/sms?cursor=abc');
    expectError(stranger, 400, 'validation_failed');
    expect(stranger.body.error.message).to.match(/^cursor is not a cursor this API returned: give the next_cursor of a previous page/);
  });

  it('then the document tells a client to leave cursor out for the first page', async () => {
    const document = (await (await fetch(`${fx.baseUrl}${PREFIX}/openapi.json`)).json()) as {
      paths: Record<string, { get: { parameters: { name: string; description?: string; schema?: { description?: string } }[] } }>;
    };
    const cursor = document.paths[`${PREFIX}/sms`]!.get.parameters.find((parameter) => parameter.name === 'cursor')!;
    expect(cursor.description ?? cursor.schema?.description).to.match(/left out for the first page.*blank cursor is refused/);
  });
});
