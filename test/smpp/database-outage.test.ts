// SMPP while PostgreSQL is unreachable: submissions are answered ESME_RSYSERR (retry) on a
// session that stays up, the outage is logged once by SMPP (not per request or tick), nothing is
// logged as an error, and submissions are taken again once the database is back.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import type { PostgresLink } from '../support/postgres-link.ts';
import { testDatabase } from '../support/environment.ts';
import { startBehindLink, type GatewayBehindLink, type LogLine } from '../support/gateway-behind-link.ts';
import { createTenant } from '../support/tenant.ts';
import { bindEsme, issueCredential, SMPP_ON, type TestEsme } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';

if (testDatabase().kind === 'postgres') describe('SMPP: while the database is unreachable', function () {
  this.timeout(30_000);
  let link: PostgresLink;
  let gateway: Gateway;
  let esme: TestEsme;
  let behind: GatewayBehindLink;
  let logLines: LogLine[] = [];

  beforeEach(async () => {
    behind = await startBehindLink({ smpp: SMPP_ON });
    ({ link, gateway } = behind);
    logLines = behind.logLines;
    esme = await bindEsme(gateway, await issueCredential(await createTenant(gateway), { throughput_per_second: 1000 }));
  });
  afterEach(async () => {
    esme.close();
    await behind.close();
  });

  it('answers ESME_RSYSERR, keeps the session, logs the outage once, and takes submissions again afterwards', async () => {
    await link.cut();
    for (let i = 0; i < 5; i++) {
      expect((await esme.call('submit_sm', { destination_addr: '+79161234567', short_message: 'held?' })).command_status).to.equal(STATUS.ESME_RSYSERR);
    }
    expect((await esme.call('enquire_link')).command_status).to.equal(STATUS.ESME_ROK);
    const smppOutage = logLines.filter((line) => line.component === 'smpp' && /database unreachable/.test(line.msg));
    expect(smppOutage).to.have.length(1);
    expect(logLines.filter((line) => line.level >= 50), JSON.stringify(logLines.filter((line) => line.level >= 50))).to.deep.equal([]);
    await link.restore();
    expect((await esme.call('submit_sm', { destination_addr: '+79161234567', short_message: 'after' })).command_status).to.equal(STATUS.ESME_ROK);
  });
});
