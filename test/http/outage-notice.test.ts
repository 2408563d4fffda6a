// The API's log through a database outage: one line when it starts, one when the database answers
// a statement again. Requests that read nothing (/healthz, the OpenAPI document) succeed through
// the outage, and say nothing of the database: they must not end it. PostgreSQL only: the outage
// is a cut TCP link to the server.
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import { EXTENDED_PREFIX } from '../../src/http/extended-prefix.ts';
import { createTenant } from '../support/tenant.ts';
import { eventually } from '../support/eventually.ts';
import { PostgresLink } from '../support/postgres-link.ts';
import { testDatabase, testDatabaseUrl } from '../support/environment.ts';

interface LogLine {
  msg: string;
  component?: string;
}

if (testDatabase().kind === 'postgres') describe('the API outage notice', function () {
  this.timeout(30_000);
  let link: PostgresLink;
  let gateway: Gateway;
  const logLines: LogLine[] = [];

  beforeEach(async () => {
    logLines.length = 0;
    link = await PostgresLink.open(testDatabaseUrl()!);
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logLines.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    const config = { ...loadConfig({}), port: 0, host: '127.0.0.1', mqttPort: 0, databaseUrl: link.url, dataDir: ':memory:', logLevel: 'info' as const };
    gateway = await Gateway.start(config, createLogger('info', sink));
  });
  afterEach(async () => {
    await link.restore();
    await gateway.stop();
    await link.close();
  });

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
