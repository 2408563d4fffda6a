// The API's log through a database outage: one line when it starts, one when the database answers
// a statement again. Requests that read nothing (/healthz, the OpenAPI document) succeed through
// the outage, and say nothing of the database: they must not end it. PostgreSQL only: the outage
// is a cut TCP link to the server.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { EXTENDED_PREFIX } from '../../src/http/extended-prefix.ts';
import { createTenant } from '../support/tenant.ts';
import { eventually } from '../support/eventually.ts';
import type { PostgresLink } from '../support/postgres-link.ts';
import { testDatabase } from '../support/environment.ts';
import { startBehindLink, type GatewayBehindLink, type LogLine } from '../support/gateway-behind-link.ts';

if (testDatabase().kind === 'postgres') describe('the API outage notice', function () {
  this.timeout(30_000);
  let link: PostgresLink;
  let gateway: Gateway;
  let behind: GatewayBehindLink;
  let logLines: LogLine[] = [];

  beforeEach(async () => {
    behind = await startBehindLink();
    ({ link, gateway } = behind);
    logLines = behind.logLines;
  });
  afterEach(async () => behind.close());

  const apiLines = (pattern: RegExp) => logLines.filter((line) => line.component === 'http' && pattern.test(line.msg));
  const unreachable = () => apiLines(/^database unreachable/);
  const reachableAgain = () => apiLines(/^database reachable again/);

  it('when /healthz and API routes are asked through a database cut, then the outage is logged once as it starts and once as it ends', async () => {
    // A fresh key: not in the key cache, so every API request reads the database.
    const tenant = await createTenant(gateway);
    const base = `http://127.0.0.1:${gateway.httpPort}`;
    await link.cut();
    for (let i = 0; i < 5; i++) {
      expect((await tenant.api.get('/devices')).status).to.equal(503);
      expect((await fetch(`${base}/healthz`)).status).to.equal(200);
      expect((await fetch(`${base}${EXTENDED_PREFIX}/openapi.json`)).status).to.equal(200);
    }
    expect(unreachable()).to.have.length(1);
    expect(reachableAgain(), 'ended by requests that read nothing').to.have.length(0);

    await link.restore();
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
