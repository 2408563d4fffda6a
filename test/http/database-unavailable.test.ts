// The API while the database is unreachable: API calls answer 503 database_unavailable with
// Retry-After, logged once per outage, not 500 per request. PostgreSQL only: the outage is a
// cut TCP link to the server.
import { expect } from 'chai';
import { createTenant, type Reply } from '../support/tenant.ts';
import { useDatabaseOutage } from '../support/outage.ts';
import type { GatewayLogLine } from '../support/gateway-log.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';

function expectDatabaseUnavailable(reply: Reply): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(503);
  expect(reply.body).to.deep.equal({
    error: { code: 'database_unavailable', message: 'the database is unreachable; retry after the time Retry-After gives' },
  });
  expect(reply.headers.get('retry-after')).to.equal('5');
}

describe('the API while the database is unreachable', function () {
  // The outage is a cut TCP link to the server: the embedded database has no connection to cut.
  onlyOnPostgres();
  this.timeout(30_000);
  const outage = useDatabaseOutage({ logLevel: 'info' });

  const component = (line: GatewayLogLine) => line.component === 'http' || line.component === undefined;
  const outageLines = () => outage.log.lines.filter((line) => component(line) && /database unreachable/.test(line.msg));
  const errorLines = () => outage.log.lines.filter((line) => line.level >= 50);

  it('answers 503 database_unavailable with Retry-After on both families, and logs the outage once, not each request', async () => {
    // A fresh key: not in the key cache, so every request reads the database.
    const fresh = await createTenant(outage.gateway);
    await outage.link.cut();
    for (let i = 0; i < 5; i++) {
      expectDatabaseUnavailable(await fresh.api.get('/devices'));
      expectDatabaseUnavailable(await fresh.api.post('/sms', { phone: '+79161234567', message: 'held?' }));
      expectDatabaseUnavailable(await fresh.root.get('/sms'));
    }
    expect(outageLines().map((line) => line.msg)).to.have.length(1);
    expect(errorLines(), JSON.stringify(errorLines())).to.deep.equal([]);
  });

  it('serves again once the database is back, logs that once, and a later outage is logged again', async () => {
    await outage.link.cut();
    expectDatabaseUnavailable(await outage.tenant.api.post('/sms', { phone: '+79161234567', message: 'first outage' }));
    await outage.link.restore();
    const created = await outage.tenant.api.post('/sms', { phone: '+79161234567', message: 'after the outage' });
    expect(created.status).to.equal(201);
    expect(outage.log.lines.filter((line) => /database reachable again/.test(line.msg))).to.have.length(1);

    await outage.link.cut();
    expectDatabaseUnavailable(await outage.tenant.api.get(`/sms/${created.body.id as string}`));
    expect(outageLines()).to.have.length(2);
  });

  it('answers what needs no database as before: no key or a malformed header is 401; a request whose key must be read is 503', async () => {
    await outage.link.cut();
    expect((await fetch(`${outage.tenant.api.baseUrl}/devices`)).status).to.equal(401);
    expect((await fetch(`${outage.tenant.api.baseUrl}/devices`, { headers: { authorization: 'Basic x' } })).status).to.equal(401);
    // The key is checked before the body is read, and checking it needs the database.
    expectDatabaseUnavailable(await outage.tenant.api.post('/sms', '{"phone": '));
  });
});
