// A device's last-seen time survives a database outage: a phone that disconnects while the
// database is unreachable has its disconnect recorded once the database answers again, not
// dropped with the write that failed (the last-seen writer keeps a batch that met an outage).
// PostgreSQL only: the outage is a cut TCP link to the server (the embedded database has no
// connection to cut).
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { PostgresLink } from '../support/postgres-link.ts';
import { TaskPhone } from '../support/task-phone.ts';
import { eventually } from '../support/eventually.ts';
import { testDatabase, testDatabaseUrl } from '../support/environment.ts';

/** The start of the line the last-seen writer logs when a write meets the outage. */
const OUTAGE_LINE = 'database unreachable: last-seen times';

/** The gateway's JSON log lines; `until(start)` resolves when one whose message starts so is written. */
class LogLines {
  private readonly waiting: { start: string; resolve: () => void }[] = [];
  private readonly seen: string[] = [];
  write(chunk: string): void {
    const { msg } = JSON.parse(chunk) as { msg: string };
    this.seen.push(msg);
    for (const waiter of this.waiting.filter((w) => msg.startsWith(w.start))) waiter.resolve();
  }
  until(start: string): Promise<void> {
    if (this.seen.some((msg) => msg.startsWith(start))) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ start, resolve }));
  }
}

if (testDatabase().kind === 'postgres') describe('device channel: last-seen times through a database outage', function () {
  this.timeout(30_000);
  let link: PostgresLink;
  let gateway: Gateway;
  let tenant: Tenant;
  const logs = new LogLines();

  beforeEach(async () => {
    link = await PostgresLink.open(testDatabaseUrl()!);
    gateway = await startGateway({ databaseUrl: link.url, logLevel: 'warn' }, undefined, logs);
    tenant = await createTenant(gateway);
  });
  afterEach(async () => {
    await link.restore();
    await gateway.stop();
    await link.close();
  });

  it('when a phone disconnects while the database is unreachable, then its last-seen time is the disconnect once the database is back', async () => {
    const phone = await TaskPhone.connect(gateway, tenant);
    const lastSeen = async () => (await tenant.api.get(`/devices/${phone.id}`)).body.last_seen_at as string | null;
    const connectedSeen = await eventually('the connect recorded', async () => (await lastSeen()) ?? undefined);

    await link.cut();
    const disconnectedAt = new Date();
    phone.kill();
    // The writer met the outage: its first write of the disconnect failed.
    await logs.until(OUTAGE_LINE);
    await link.restore();

    const recorded = await eventually('the disconnect recorded', async () => {
      const seen = await lastSeen();
      return seen !== null && seen !== connectedSeen ? seen : undefined;
    }, 10_000);
    expect(new Date(recorded).getTime()).to.be.at.least(disconnectedAt.getTime());
  });
});
