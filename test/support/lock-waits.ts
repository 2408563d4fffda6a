// For tests that make two transactions meet on the same rows: resolves once PostgreSQL shows a
// backend waiting for a row lock, so the test takes its next lock only when the crossing it means
// to make is really there.
import type { Knex } from 'knex';
import { eventually } from './eventually.ts';

/** Once a statement mentioning `table` waits for a lock in this database. */
export function statementWaitsForLock(db: Knex, table: string): Promise<true> {
  return eventually(`a statement on ${table} waiting for a lock`, async () => {
    const { rows } = await db.raw<{ rows: unknown[] }>(
      `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like ?`,
      [`%${table}%`],
    );
    return rows.length > 0 ? true : undefined;
  });
}

/** Once the backend `pid` waits for a lock. */
export function backendWaitsForLock(db: Knex, pid: number): Promise<true> {
  return eventually(`backend ${pid} waiting for a lock`, async () => {
    const { rows } = await db.raw<{ rows: { wait_event_type: string | null }[] }>(`select wait_event_type from pg_stat_activity where pid = ?`, [pid]);
    return rows[0]?.wait_event_type === 'Lock' ? true : undefined;
  });
}
