// The PostgreSQL connection settings: DATABASE_STATEMENT_TIMEOUT, DATABASE_STALL_TIMEOUT and
// DATABASE_KEEPALIVE are read and checked in src/config.ts, each has its row in the README's
// table, and the statement timeout is PostgreSQL's on the pool's connections, never on the
// migrations'. The database half is PostgreSQL only (the embedded database has no connections).
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { configProblemsText, settingsReadAndDocumented } from '../support/config-problems.ts';
import pg from 'pg';
import { closeDatabase, DEFAULT_CONNECTIONS, LOCKS, migrate, openDatabase, type Database } from '../../src/storage/database.ts';
import { testDatabaseUrl } from '../support/environment.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';



describe('storage: connection settings', () => {
  it('when the README is read, then every DATABASE_ variable config.ts reads is a row of its table, and every row is read', () => {
    const { read, documented } = settingsReadAndDocumented('DATABASE_');
    expect(documented).to.deep.equal(read);
  });

  it('when nothing is set, then the defaults are the database module\'s own (30 s, 3 s, 10 s), and set values are read in seconds', () => {
    expect(loadConfig({}).database).to.deep.equal(DEFAULT_CONNECTIONS);
    expect(loadConfig({}).database).to.deep.equal({ statementTimeoutMs: 30_000, stallTimeoutMs: 3_000, keepAliveMs: 10_000 });
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT: '0', DATABASE_STALL_TIMEOUT: '5', DATABASE_KEEPALIVE: '60' }).database).to.deep.equal({
      statementTimeoutMs: 0,
      stallTimeoutMs: 5_000,
      keepAliveMs: 60_000,
    });
  });

  it('when a value is bad, then the start is refused naming the variable', () => {
    expect(configProblemsText({ DATABASE_STATEMENT_TIMEOUT: '30s' })).to.contain('DATABASE_STATEMENT_TIMEOUT: must be a whole number from 0 to 86400');
    expect(configProblemsText({ DATABASE_STALL_TIMEOUT: '0' })).to.contain('DATABASE_STALL_TIMEOUT: must be a whole number from 1 to 600');
    expect(configProblemsText({ DATABASE_KEEPALIVE: '-1' })).to.contain('DATABASE_KEEPALIVE: must be a whole number from 1 to 7200');
  });

  describe('on PostgreSQL', function () {
    // Pooled connections and a second client holding a lock: the embedded database has no connections.
    onlyOnPostgres();
    this.timeout(20_000);
    let db: Database | undefined;
    afterEach(async () => {
      if (db) await closeDatabase(db);
      db = undefined;
    });

    it('when DATABASE_STATEMENT_TIMEOUT is 1, then a longer statement of the pool is cancelled, and the migrations run without it', async () => {
      db = await openDatabase({ databaseUrl: testDatabaseUrl()!, dataDir: ':memory:', connections: { ...DEFAULT_CONNECTIONS, statementTimeoutMs: 1_000 } });
      const shown = await db.raw<{ rows: { statement_timeout: string }[] }>('show statement_timeout');
      expect(shown.rows[0]!.statement_timeout).to.equal('1s');
      const error = await db.raw('select pg_sleep(1.5)').then(() => undefined, (failure: unknown) => failure);
      expect((error as { code?: string } | undefined)?.code, 'query_canceled').to.equal('57014');

      // Another node migrating holds the lock for longer than the timeout: the wait is not cut short.
      const other = new pg.Client({ connectionString: testDatabaseUrl()! });
      await other.connect();
      try {
        await other.query('select pg_advisory_lock($1)', [LOCKS.migrations]);
        const migrating = migrate(db);
        // Held past the statement timeout (1 s), then let go.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        await other.query('select pg_advisory_unlock($1)', [LOCKS.migrations]);
        expect(await migrating).to.be.an('array');
      } finally {
        await other.end();
      }
    });
  });
});
