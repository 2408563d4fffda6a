// A PostgreSQL primary switchover with a DATABASE_URL naming both servers
// (postgres://…@primary,standby/db?target_session_attrs=read-write): the primary of a synchronous
// pair of the test's own is killed under a steady load of posted SMS, its standby promoted, and
// the gateway finds the new primary by itself. Every SMS answered 201 is on the new primary, none
// is sent twice or handed to two phones, all are sent soon after the gap, and the only refusals
// are 503 database_unavailable with Retry-After during the gap. The short version of
// scripts/drills/postgres-failover.ts (support/failover-scenario.ts is shared). And the start-up
// warning of a standby that is asynchronous: given only where a 201 may be lost. And the hosts'
// order: the first that is the primary, whatever its place in the list.
// PostgreSQL only: the clusters are made with the server's own binaries, as the postgres user.
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/common/logger.ts';
import { closeDatabase, openDatabase } from '../../src/storage/database.ts';
import { ASYNC_STANDBY_WARNING } from '../../src/storage/standby-durability.ts';
import { runFailover } from '../../scripts/drills/support/failover-scenario.ts';
import { StandbyPair } from '../../scripts/drills/support/standby-pair.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';

/** From the kill to the promotion: a failover manager's detection time, short. */
const PROMOTE_AFTER_MS = 1_500;
/** The gap past the promotion within which the gateway accepts SMS again. */
const FOUND_WITHIN_MS = 3_000;
/** After the gap, every SMS answered 201 is sent within this. */
const SENT_WITHIN_MS = 20_000;

describe('storage: PostgreSQL primary switchover', function () {
  onlyOnPostgres();
  this.timeout(90_000);

  it('when the primary dies under load and its synchronous standby is promoted, then the gateway writes to the new primary: nothing answered 201 is lost, nothing sent twice, 503 only during the gap', async () => {
    const figures = await runFailover({ rate: 20, phones: 4, warmupMs: 2_000, promoteAfterMs: PROMOTE_AFTER_MS, drainMs: SENT_WITHIN_MS, logLevel: 'silent' });
    console.log(`      gap ${figures.gapMs} ms (promoted after ${figures.promotedAfterMs} ms), ${figures.accepted} accepted, refused ${JSON.stringify(Object.fromEntries(figures.refused))}, lost ${figures.lost.length}, sent twice ${figures.sentTwice}, all sent ${figures.drainedAfterMs} ms after the gap`);

    expect(figures.gapMs, 'an SMS accepted after the kill').to.be.a('number');
    expect(figures.gapMs!).to.be.at.most(figures.promotedAfterMs + FOUND_WITHIN_MS);
    expect(figures.accepted).to.be.greaterThan(40);
    expect(figures.lost, 'SMS answered 201 missing on the new primary').to.deep.equal([]);
    expect(figures.sentTwice, 'SMS sent twice').to.equal(0);
    expect(figures.handedToTwo, 'SMS handed to two phones').to.equal(0);
    expect(figures.stuck, 'SMS not sent within the bound').to.equal(0);
    expect(figures.unexpectedRefusals).to.deep.equal([]);
    // Some posts met the gap, and were told so.
    expect(figures.refused.get('503 database_unavailable') ?? 0).to.be.greaterThan(0);
    expect(figures.warnings.get('database primary lost: looking for the server that accepts writes')).to.be.at.least(1);
    expect(figures.warnedAsync, 'no warning: the standby is synchronous').to.equal(false);
  });

  it('when DATABASE_URL names the standby first, then the gateway connects to the primary (read-write and primary), and to the first that answers with any', async () => {
    const pair = await StandbyPair.create('host-order', 'sms_gateway');
    try {
      const serverPort = async (attrs: string) => {
        const db = await openDatabase({ databaseUrl: `postgres://postgres@127.0.0.1:${pair.standbyPort},127.0.0.1:${pair.primaryPort}/sms_gateway?target_session_attrs=${attrs}`, dataDir: ':memory:' });
        try {
          const { rows } = (await db.raw('select inet_server_port() as port')) as { rows: { port: number }[] };
          return Number(rows[0]!.port);
        } finally {
          await closeDatabase(db);
        }
      };
      expect(await serverPort('read-write')).to.equal(pair.primaryPort);
      expect(await serverPort('primary')).to.equal(pair.primaryPort);
      expect(await serverPort('any')).to.equal(pair.standbyPort);
    } finally {
      pair.removeNow();
    }
  });

  it('when the primary streams to its standby asynchronously, then the gateway warns at start that a 201 may be lost, and says nothing while it is synchronous', async () => {
    const pair = await StandbyPair.create('async-warning', 'sms_gateway');
    try {
      const url = `postgres://postgres@127.0.0.1:${pair.primaryPort},127.0.0.1:${pair.standbyPort}/sms_gateway`;
      const warned = async () => {
        const lines: string[] = [];
        const sink = new Writable({
          write(chunk: Buffer, _encoding, done) {
            lines.push(...chunk.toString().split('\n').filter((line) => line.trim()));
            done();
          },
        });
        const db = await openDatabase({ databaseUrl: url, dataDir: ':memory:', logger: createLogger('warn', sink) });
        await closeDatabase(db);
        return lines.map((line) => (JSON.parse(line) as { msg: string }).msg).filter((msg) => msg === ASYNC_STANDBY_WARNING).length;
      };
      expect(await warned(), 'synchronous standby').to.equal(0);
      await pair.onPrimary("alter system set synchronous_standby_names = ''", 'select pg_reload_conf()');
      expect(await warned(), 'asynchronous standby').to.equal(1);
    } finally {
      pair.removeNow();
    }
  });
});
