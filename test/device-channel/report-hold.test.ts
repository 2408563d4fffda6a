// How long a status report is held through a database outage: retried with backoff until it
// commits, rejected once held past its bound (the broker then closes the device's connection and
// the device sends the report again after reconnecting), and given up when the gateway stops. A
// real status ingestor on a real pg pool pointed at a port where no server listens (a stopped
// database).
import { expect } from 'chai';
import knexModule, { type Knex } from 'knex';
import { StatusIngestor } from '../../src/modules/delivery/status-ingestor.ts';
import { TransientStore } from '../../src/modules/delivery/transient-store.ts';
import { DomainEvents } from '../../src/events/domain-events.ts';
import { systemClock } from '../../src/common/clock.ts';
import { createLogger } from '../../src/common/logger.ts';
import { freePort } from '../support/ports.ts';

describe('device channel: a status report held through a database outage', () => {
  let db: Knex;
  before(async () => {
    db = knexModule.knex({ client: 'pg', connection: `postgres://nobody@127.0.0.1:${await freePort()}/none`, pool: { min: 0, max: 2 },
      // knex would print every refused connection on the console.
      log: { warn() {}, error() {}, deprecate() {}, debug() {} },
    });
  });
  after(async () => db.destroy());

  const ingestor = (maxHoldMs: number) =>
    new StatusIngestor(db, new TransientStore(), new DomainEvents(() => {}), systemClock, createLogger('silent'), maxHoldMs);

  it('when the database stays unreachable, then the report is retried and rejected once held past its bound', async () => {
    const status = ingestor(700);
    let held = 0;
    status.on('held', () => held++);
    const error = await status.submit({ deviceId: crypto.randomUUID(), smsId: crypto.randomUUID(), status: 'sent' }).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error, 'rejected').to.be.instanceOf(Error);
    expect((error as { code?: string }).code).to.equal('ECONNREFUSED');
    // Held by the first attempt and its retries (250 ms, 500 ms ...) until the bound.
    expect(held).to.be.at.least(2);
  });

  it('when the gateway stops during the outage, then held reports are rejected at once', async () => {
    const status = ingestor(60_000);
    const held = new Promise((resolve) => status.once('held', resolve));
    const report = status.submit({ deviceId: crypto.randomUUID(), smsId: crypto.randomUUID(), status: 'sent' }).then(
      () => 'applied',
      () => 'rejected',
    );
    await held;
    await status.idle();
    expect(await report).to.equal('rejected');
  });
});
