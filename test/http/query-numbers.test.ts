// Numbers in query strings, on every paged list of both families: a blank value, text that is no
// number and a number out of range are each a 400 that says what the parameter takes, in the same
// words everywhere; a blank is never read as 0 (as "at least 1", or as the legacy first page).
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError } from '../support/expectations.ts';
import type { Reply } from '../support/tenant.ts';

const EXTENDED_LISTS = ['/sms', '/devices', '/incoming', '/calls', '/mms/incoming', '/webhooks', '/keys', '/suppressions', '/conversations', '/contacts', '/contact-groups', '/templates'];
const LIMIT = 'limit must be a whole number from 1 to 100';
const BLANK_LIMIT = 'limit is blank; it must be a whole number from 1 to 100';

function expectRefusal(reply: Reply, message: string, field = 'limit'): void {
  expectError(reply, 400, 'validation_failed');
  expect(reply.body.error.message, JSON.stringify(reply.body)).to.equal(message);
  expect(reply.body.error.details).to.deep.equal([{ field, in: 'query', message }]);
}

describe('numbers in query strings', () => {
  const fx = useGateway({ tenant: 'once' });

  for (const path of EXTENDED_LISTS) {
    it(`then GET ${path} with limit blank, empty or spaces, says it is blank`, async () => {
      expectRefusal(await fx.tenant.api.get(`${path}?limit=`), BLANK_LIMIT);
      expectRefusal(await fx.tenant.api.get(`${path}?limit=+`), BLANK_LIMIT);
    });
  }

  it('then limit that is no number, or out of range, says the whole range, on both families', async () => {
    for (const value of ['abc', '0x10', '1.5', '0', '101']) {
      expectRefusal(await fx.tenant.api.get(`/sms?limit=${value}`), LIMIT);
      expectRefusal(await fx.tenant.root.get(`/sms?limit=${value}`), LIMIT);
    }
  });

  it('then the legacy list says a blank limit is blank, as the Extended API does', async () => {
    expectRefusal(await fx.tenant.root.get('/sms?limit='), BLANK_LIMIT);
    expectRefusal(await fx.tenant.root.get('/sms?limit=%20'), BLANK_LIMIT);
  });

  it('then a blank legacy offset is refused, not taken as the first page', async () => {
    expectRefusal(await fx.tenant.root.get('/sms?limit=10&offset=+'), 'offset is blank; it must be a whole number from 0 to 10000000', 'offset');
    expectRefusal(await fx.tenant.root.get('/sms?limit=10&offset=0x1'), 'offset must be a whole number from 0 to 10000000', 'offset');
  });

  it('then limit given twice says so', async () => {
    expectRefusal(await fx.tenant.api.get('/sms?limit=10&limit=20'), 'limit is given more than once; give it once');
    expectRefusal(await fx.tenant.root.get('/sms?limit=10&limit=20'), 'limit is given more than once; give it once');
  });

  it('then numbers written as numbers are taken, as before', async () => {
    expect((await fx.tenant.api.get('/sms?limit=10')).status).to.equal(200);
    const legacy = await fx.tenant.root.get('/sms?limit=10&offset=0');
    expect(legacy.status, JSON.stringify(legacy.body)).to.equal(200);
    expect(legacy.body.pagination).to.include({ limit: 10, offset: 0 });
  });
});
