// The API while the database is unreachable: API calls answer 503 database_unavailable with
// Retry-After, logged once per outage, not 500 per request. PostgreSQL only: the outage is a
// cut TCP link to the server.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { createTenant, type Reply, type Tenant } from '../support/tenant.ts';
import type { PostgresLink } from '../support/postgres-link.ts';
import { testDatabase } from '../support/environment.ts';
import { startBehindLink, type GatewayBehindLink, type LogLine } from '../support/gateway-behind-link.ts';

function expectDatabaseUnavailable(reply: Reply): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(503);
  expect(reply.body).to.deep.equal({
    error: { code: 'database_unavailable', message: 'the database is unreachable; retry after the time Retry-After gives' },
  });
  expect(reply.headers.get('retry-after')).to.equal('5');
}

if (testDatabase().kind === 'postgres') describe('the API while the database is unreachable', function () {
  this.timeout(30_000);
  let link: PostgresLink;
  let gateway: Gateway;
  let tenant: Tenant;
  let behind: GatewayBehindLink;
  let logLines: LogLine[] = [];

  beforeEach(async () => {
    behind = await startBehindLink();
    ({ link, gateway } = behind);
    logLines = behind.logLines;
    tenant = await createTenant(gateway);
  });
  afterEach(async () => behind.close());

  const component = (line: LogLine & { component?: string }) => line.component === 'http' || line.component === undefined;
  const outageLines = () => logLines.filter((line) => component(line) && /database unreachable/.test(line.msg));
  const errorLines = () => logLines.filter((line) => line.level >= 50);

  it('answers 503 database_unavailable with Retry-After on both families, and logs the outage once, not each request', async () => {
    // A fresh key: not in the key cache, so every request reads the database.
    const fresh = await createTenant(gateway);
    await link.cut();
    for (let i = 0; i < 5; i++) {
      expectDatabaseUnavailable(await fresh.api.get('/devices'));
      expectDatabaseUnavailable(await fresh.api.post('/sms', { phone: '+79161234567', message: 'held?' }));
      expectDatabaseUnavailable(await fresh.root.get('/sms'));
    }
    expect(outageLines().map((line) => line.msg)).to.have.length(1);
    expect(errorLines(), JSON.stringify(errorLines())).to.deep.equal([]);
  });

  it('serves again once the database is back, logs that once, and a later outage is logged again', async () => {
    await link.cut();
    expectDatabaseUnavailable(await tenant.api.post('/sms', { phone: '+79161234567', message: 'first outage' }));
    await link.restore();
    const created = await tenant.api.post('/sms', { phone: '+79161234567', message: 'after the outage' });
    expect(created.status).to.equal(201);
    expect(logLines.filter((line) => /database reachable again/.test(line.msg))).to.have.length(1);

    await link.cut();
    expectDatabaseUnavailable(await tenant.api.get(`/sms/${created.body.id as string}`));
    expect(outageLines()).to.have.length(2);
  });

  it('answers what needs no database as before: no key or a malformed header is 401; a request whose key must be read is 503', async () => {
    await link.cut();
    expect((await fetch(`${tenant.api.baseUrl}/devices`)).status).to.equal(401);
    expect((await fetch(`${tenant.api.baseUrl}/devices`, { headers: { authorization: 'Basic x' } })).status).to.equal(401);
    // The key is checked before the body is read, and checking it needs the database.
    expectDatabaseUnavailable(await tenant.api.post('/sms', '{"phone": '));
  });
});
