// The database connection pool of this process on /metrics: connections used and free, and the
// queries waiting for one. Empty on the embedded database, which has no pool.
import type { Knex } from 'knex';
import type { Sample } from '../common/metrics.ts';
import type { Database } from './database.ts';

interface PoolFigures {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

export async function poolConnections(db: Database): Promise<Sample[]> {
  const pool = poolOf(db);
  return pool ? [{ labels: { state: 'used' }, value: pool.numUsed() }, { labels: { state: 'free' }, value: pool.numFree() }] : [];
}

export async function poolPendingAcquires(db: Database): Promise<Sample[]> {
  const pool = poolOf(db);
  return pool ? [{ labels: {}, value: pool.numPendingAcquires() }] : [];
}

/** knex's connection pool (tarn); absent once the database is closed. */
function poolOf(db: Database): PoolFigures | undefined {
  return (db as Knex & { client: { pool?: PoolFigures } }).client.pool ?? undefined;
}
