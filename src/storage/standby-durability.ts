// At start, a warning when the primary streams to a standby without waiting for it: a commit the
// gateway answered 201 for may not have reached the standby when it takes over, and is lost
// there. Nothing is said when nothing can be seen (no standby, or a role without the privilege
// to read pg_stat_replication's details), nor on the embedded database.
import type { Knex } from 'knex';
import type { Logger } from '../common/logger.ts';

export const ASYNC_STANDBY_WARNING =
  'PostgreSQL replicates to a standby asynchronously: an SMS answered 201 may be lost if the standby takes over after a failover. ' +
  "Set synchronous_commit = on and synchronous_standby_names (such as '*' or 'ANY 1 (standby1, standby2)') on the primary; see docs/deployment.md, PostgreSQL with a standby";

interface Replication {
  standbys: number;
  async_standbys: number;
  seen: number;
  standby_names: string;
  commit: string;
}

/** Logs ASYNC_STANDBY_WARNING once when the server `db` uses shows an asynchronous standby. */
export async function warnIfStandbysLag(db: Knex, logger: Logger): Promise<void> {
  let replication: Replication | undefined;
  try {
    const { rows } = (await db.raw(
      `select count(*) as standbys,
              count(*) filter (where sync_state = 'async') as async_standbys,
              count(sync_state) as seen,
              current_setting('synchronous_standby_names') as standby_names,
              current_setting('synchronous_commit') as commit
         from pg_stat_replication`,
    )) as { rows: Replication[] };
    replication = rows[0];
  } catch {
    // A server that does not let this role look: nothing can be said.
    return;
  }
  if (!replication || Number(replication.standbys) === 0) return;
  const names = replication.standby_names.trim();
  const waitsForNone = names === '' || replication.commit === 'off' || replication.commit === 'local';
  // Without the privilege, the rows show only that standbys exist: async if nothing is waited for.
  const asyncSeen = Number(replication.async_standbys) > 0 && Number(replication.seen) > 0;
  if (!asyncSeen && !waitsForNone) return;
  logger.warn(
    { standbys: Number(replication.standbys), asyncStandbys: Number(replication.async_standbys), synchronousStandbyNames: names, synchronousCommit: replication.commit },
    ASYNC_STANDBY_WARNING,
  );
}
