// What decides whether a device's report is held through an outage or refused at once:
// isDatabaseUnavailable tells an unreachable database (retrying will succeed) from a statement
// that fails on its own (retrying never will). Real errors where they can be had.
import { expect } from 'chai';
import knexModule from 'knex';
import type { Gateway } from '../../src/gateway.ts';
import { isDatabaseUnavailable } from '../../src/common/outage-notice.ts';
import { isRowLevelFailure } from '../../src/storage/database-errors.ts';
import { startGateway } from '../support/gateway.ts';
import { freePort } from '../support/ports.ts';

async function failure(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the work to fail');
}

describe('device channel: telling a database outage from a bad statement', () => {
  let gateway: Gateway;
  before(async function () {
    // The embedded database takes a while to start on a busy machine.
    this.timeout(60_000);
    gateway = await startGateway();
  });
  after(async () => gateway?.stop());

  it('when no server listens where the database should be, then the error is an outage', async () => {
    const db = knexModule.knex({ client: 'pg', connection: `postgres://nobody@127.0.0.1:${await freePort()}/none`, pool: { min: 0, max: 1 } });
    try {
      expect(isDatabaseUnavailable(await failure(() => db.raw('select 1')))).to.equal(true);
    } finally {
      await db.destroy();
    }
  });

  it('when a statement is wrong, then the error is not an outage', async () => {
    const db = gateway.services.db;
    expect(isDatabaseUnavailable(await failure(() => db.raw('select * from no_such_table')))).to.equal(false);
    expect(isDatabaseUnavailable(await failure(() => db.raw("select 'not a uuid'::uuid")))).to.equal(false);
  });

  it('when the server shuts down, restarts or a connection dies, then the error is an outage', () => {
    // 57014: a statement cancelled by the statement timeout, on a server too slow to answer in time.
    for (const code of ['57P01', '57P02', '57P03', '57014', '08006', '08001', '53300', '25006', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']) {
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).to.equal(true);
    }
    // knex puts the statement in front of pg's message.
    expect(isDatabaseUnavailable(new Error('COMMIT; - Connection terminated unexpectedly'))).to.equal(true);
    expect(isDatabaseUnavailable(new Error('BEGIN; - Client has encountered a connection error and is not queryable'))).to.equal(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }))).to.equal(true);
    // Wrapped, or one of several addresses refused.
    expect(isDatabaseUnavailable(new Error('outer', { cause: Object.assign(new Error('inner'), { code: 'ECONNREFUSED' }) }))).to.equal(true);
    expect(isDatabaseUnavailable(new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })]))).to.equal(true);
  });

  it('when the error is a constraint, bad data or not an error at all, then it is not an outage', () => {
    for (const code of ['23505', '22P02', '40001', '42P01']) {
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).to.equal(false);
    }
    for (const value of [undefined, null, 'ECONNREFUSED', 42, new Error('invalid payload')]) expect(isDatabaseUnavailable(value)).to.equal(false);
  });

  it('tells a failure one row may cause (bad data, a broken constraint, our own code) from a statement refused whole', async () => {
    const db = gateway.services.db;
    // One row's: a value the column cannot hold, a key no account has.
    expect(isRowLevelFailure(await failure(() => db.raw("select 'not a uuid'::uuid")))).to.equal(true);
    expect(isRowLevelFailure(await failure(() => db.raw("insert into api_keys (id, account_id) values (gen_random_uuid(), gen_random_uuid())")))).to.equal(true);
    expect(isRowLevelFailure(new TypeError("Cannot read properties of undefined (reading 'toISOString')"))).to.equal(true);
    // Every row's alike: an unknown table or column, a server gone read-only.
    expect(isRowLevelFailure(await failure(() => db.raw('select * from no_such_table')))).to.equal(false);
    expect(isRowLevelFailure(await failure(() => db.raw('select no_such_column from sms')))).to.equal(false);
    expect(isRowLevelFailure(Object.assign(new Error('cannot execute UPDATE in a read-only transaction'), { code: '25006' }))).to.equal(false);
  });
});
