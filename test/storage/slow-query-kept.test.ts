// A query that hears nothing back for DATABASE_STALL_TIMEOUT is not taken for a dead connection
// while its server is still working on it: a slow statement and a wait for a lock answer in full,
// on the connection they began on. (The watch closes a silent connection only when the server
// says its backend is idle or gone.) PostgreSQL only: the embedded database has no connections.
import { expect } from 'chai';
import pg from 'pg';
import { closeDatabase, DEFAULT_CONNECTIONS, openDatabase, type Database } from '../../src/storage/database.ts';
import { testDatabaseUrl } from '../support/environment.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';

/** The stall timeout of the pool under test: each query below stays silent for longer. */
const STALL_MS = 1_000;
const LOCK = 7_236_099;

describe('storage: slow queries on a live server', function () {
  // A server's backends and their connections: the embedded database has no connections.
  onlyOnPostgres();
  this.timeout(20_000);
  let db: Database;
  let other: pg.Client;

  beforeEach(async () => {
    db = await openDatabase({ databaseUrl: testDatabaseUrl()!, dataDir: ':memory:', connections: { ...DEFAULT_CONNECTIONS, stallTimeoutMs: STALL_MS } });
    other = new pg.Client({ connectionString: testDatabaseUrl()! });
    await other.connect();
  });
  afterEach(async () => {
    await other.end();
    await closeDatabase(db);
  });

  it('when a statement runs silent past the stall timeout, then it answers on its own connection', async () => {
    const result = await db.transaction(async (trx) => {
      const before = (await trx.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      await trx.raw('select pg_sleep(?)', [(STALL_MS * 2.5) / 1000]);
      const after = (await trx.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      return { before, after };
    });
    expect(result.after, 'the same backend').to.equal(result.before);
  });

  it('when a statement waits past the stall timeout for a lock another session holds, then it gets the lock once it is let go', async () => {
    await other.query('select pg_advisory_lock($1)', [LOCK]);
    const waiting = db.raw('select pg_advisory_lock(?)', [LOCK]).then(() => db.raw('select pg_advisory_unlock(?)', [LOCK]));
    // Held for more than twice the stall timeout: the watch looks at the waiting query at least once.
    await new Promise((resolve) => setTimeout(resolve, STALL_MS * 2.5));
    await other.query('select pg_advisory_unlock($1)', [LOCK]);
    await waiting;
  });
});
