// The API comes back by itself when the database's open connections stop answering while new
// ones would work (a failover behind a virtual address, a firewall that forgot their state): the
// pooled connections that went silent are found and replaced, instead of each request waiting
// on one until TCP gives up (about 15 minutes) or for the pool until it is refused.
// PostgreSQL only: the fault is a TCP link that swallows its open connections (the embedded
// database has no connection to lose).
import { expect } from 'chai';
import type { Tenant } from '../support/tenant.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';
import { useDatabaseOutage } from '../support/outage.ts';

/** Requests at once after the fault: more than the pool's 10 connections. */
const REQUESTS = 12;
/**
 * Within this of the fault every request has been answered and the API serves again. The
 * default DATABASE_STALL_TIMEOUT (3 s) plus the watch's look at the server; far below the 15 s
 * each request hung for before (and below knex's 10 s wait for a connection).
 */
const RECOVERY_MS = 9_000;
/** A request not answered by then is counted as hung. */
const CLIENT_TIMEOUT_MS = 20_000;

describe('storage: dead database connections', function () {
  // The fault is a TCP link that swallows its open connections: the embedded database has none to lose.
  onlyOnPostgres();
  this.timeout(40_000);
  const outage = useDatabaseOutage();

  it('when the open connections stop answering while new ones work, then every request is answered within seconds and the API serves again', async () => {
    // The pool holds several connections, idle between requests, when the fault comes.
    const warm = await Promise.all(Array.from({ length: REQUESTS }, () => outage.tenant.api.get('/sms')));
    expect(warm.map((reply) => reply.status)).to.deep.equal(warm.map(() => 200));

    const swallowed = outage.link.blackhole();
    expect(swallowed, 'open connections swallowed').to.be.greaterThan(0);
    const faultAt = Date.now();

    const answers = await Promise.all(Array.from({ length: REQUESTS }, () => timedGet(outage.tenant)));
    const slowest = Math.max(...answers.map((answer) => answer.ms));
    expect(answers.filter((answer) => answer.status === 'hung'), `requests not answered within ${CLIENT_TIMEOUT_MS} ms`).to.deep.equal([]);
    expect(slowest, 'slowest answer (ms) after the fault').to.be.below(RECOVERY_MS);
    // Those that met a dead connection were refused as an outage is, never as a server error.
    for (const answer of answers) expect([200, 503], JSON.stringify(answer)).to.include(answer.status);

    let served: number | undefined;
    while (served === undefined && Date.now() - faultAt < RECOVERY_MS) {
      const answer = await timedGet(outage.tenant);
      if (answer.status === 200) served = Date.now() - faultAt;
    }
    expect(served, `the API serving again within ${RECOVERY_MS} ms of the fault`).to.be.a('number');
  });
});

/** A GET of the tenant's SMS: its status ('hung' past the client's timeout) and how long it took. */
async function timedGet(tenant: Tenant): Promise<{ status: number | 'hung'; ms: number }> {
  const started = Date.now();
  try {
    const response = await fetch(`${tenant.api.baseUrl}/sms`, {
      headers: { authorization: `Bearer ${tenant.key}` },
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    return { status: response.status, ms: Date.now() - started };
  } catch {
    return { status: 'hung', ms: Date.now() - started };
  }
}
