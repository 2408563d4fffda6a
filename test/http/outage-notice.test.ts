// The API's log through a database outage: one line when it starts, one when the database answers
// a statement again. Requests that read nothing (/healthz, the OpenAPI document) succeed through
// the outage, and say nothing of the database: they must not end it. PostgreSQL only: the outage
// is a cut TCP link to the server.
import { expect } from 'chai';
import { EXTENDED_PREFIX } from '../../src/http/extended-prefix.ts';
import { createTenant } from '../support/tenant.ts';
import { eventually } from '../support/eventually.ts';
import { useDatabaseOutage } from '../support/outage.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';

describe('the API outage notice', function () {
  // The outage is a cut TCP link to the server: the embedded database has no connection to cut.
  onlyOnPostgres();
  this.timeout(30_000);
  const outage = useDatabaseOutage({ logLevel: 'info' });

  const apiLines = (pattern: RegExp) => outage.log.lines.filter((line) => line.component === 'http' && pattern.test(line.msg));
  const unreachable = () => apiLines(/^database unreachable/);
  const reachableAgain = () => apiLines(/^database reachable again/);

  it('when /healthz and API routes are asked through a database cut, then the outage is logged once as it starts and once as it ends', async () => {
    // A fresh key: not in the key cache, so every API request reads the database.
    const tenant = await createTenant(outage.gateway);
    const base = `http://127.0.0.1:${outage.gateway.httpPort}`;
    await outage.link.cut();
    for (let i = 0; i < 5; i++) {
      expect((await tenant.api.get('/devices')).status).to.equal(503);
      expect((await fetch(`${base}/healthz`)).status).to.equal(200);
      expect((await fetch(`${base}${EXTENDED_PREFIX}/openapi.json`)).status).to.equal(200);
    }
    expect(unreachable()).to.have.length(1);
    expect(reachableAgain(), 'ended by requests that read nothing').to.have.length(0);

    await outage.link.restore();
    expect((await tenant.api.get('/devices')).status).to.equal(200);
    await eventually('the outage logged as over', () => reachableAgain().length > 0);
    for (let i = 0; i < 3; i++) {
      expect((await fetch(`${base}/healthz`)).status).to.equal(200);
      expect((await tenant.api.get('/devices')).status).to.equal(200);
    }
    expect(unreachable()).to.have.length(1);
    expect(reachableAgain()).to.have.length(1);
  });
});
