// A node of the previous release meeting a database migrated by the next one. During a rolling
// upgrade (docs/deployment.md "Upgrading without downtime") that is the normal case: the new
// release migrates first, and an old node that restarts meanwhile (a crash, a host reboot, a
// rollback) finds migrations it has never heard of. Migrations only expand the schema
// (scripts/migration-policy.ts refuses anything else), so the old node's code still works on
// it: it starts, and says in its log which migrations it does not know. A contract step takes
// away a shape that code of some older release needs; its name says so (`<date>_<nnn>_contract_`),
// so a node that does not know it cannot tell whether it is one of those, and refuses to start
// rather than fail on its first write.
import type { Knex } from 'knex';
import type { Logger } from '../common/logger.ts';

/** A migration's name that announces a contract step. */
export const CONTRACT_STEP = /^\d{8}_\d{3}_contract_/;

/** knex's record of the migrations applied (its default table name, which the gateway keeps). */
const APPLIED_TABLE = 'knex_migrations';

export interface NewerMigrations {
  /** Applied to the database, unknown to this node's code, in the order they were applied. */
  unknown: string[];
  /** Those of them that are contract steps. */
  contracts: string[];
}

export class DatabaseTooNewError extends Error {
  constructor(readonly contracts: string[]) {
    super(
      `the database has been migrated by a newer release with ${contracts.length === 1 ? 'a contract step' : 'contract steps'} ` +
        `this release does not know (${contracts.join(', ')}): it takes away what this release's code uses. ` +
        'Run the release that brought it (or a later one) on this node.',
    );
    this.name = 'DatabaseTooNewError';
  }
}

/** What of `applied` this node's code (`known`, its migrations' names) has never heard of. */
export function newerMigrations(applied: readonly string[], known: readonly string[]): NewerMigrations {
  const knownNames = new Set(known);
  const unknown = applied.filter((name) => !knownNames.has(name));
  return { unknown, contracts: unknown.filter((name) => CONTRACT_STEP.test(name)) };
}

/** The migrations the database says it has applied; none on a database never migrated. */
export async function appliedMigrations(db: Knex): Promise<string[]> {
  if (!(await db.schema.hasTable(APPLIED_TABLE))) return [];
  return (await db(APPLIED_TABLE).select('name').orderBy('id')).map((row: { name: string }) => row.name);
}

/**
 * Lets this node run on a database a newer release migrated, as long as every migration it does
 * not know is an expand step: logs them and returns them. Throws DatabaseTooNewError when one is
 * a contract step. Called before the migrations run, with knex's own check of the list (which
 * refuses any unknown migration) turned off.
 */
export async function admitNewerDatabase(db: Knex, known: readonly string[], logger?: Logger): Promise<string[]> {
  const { unknown, contracts } = newerMigrations(await appliedMigrations(db), known);
  if (contracts.length > 0) throw new DatabaseTooNewError(contracts);
  if (unknown.length > 0) {
    logger?.warn(
      { migrations: unknown },
      `the database has ${unknown.length} ${unknown.length === 1 ? 'migration' : 'migrations'} from a newer release (expand steps only): ` +
        'starting on it, as a node of the previous release does during a rolling upgrade',
    );
  }
  return unknown;
}
