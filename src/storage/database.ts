// Opens the database: PostgreSQL through pg when DATABASE_URL is set, otherwise the embedded
// PGlite in DATA_DIR (architecture decision 4). Same migrations, same queries on both.
// A DATABASE_URL naming several servers (database-hosts.ts) has its new connections go to the
// one that accepts writes, found again after a failover (database-primary.ts).
//
// PGlite has exactly one connection: code that holds a transaction must do all its work on
// that transaction object, never on the top-level knex, or it waits for itself.
import knexModule, { type Knex } from 'knex';
import pg from 'pg';
import { migrations, type Migration } from '../../db/migrations/index.ts';
import { admitNewerDatabase } from './newer-database.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { tightenDataDir } from './data-dir-permissions.ts';
import { ConnectionWatch } from './connection-watch.ts';
import { databaseLocation, parseDatabaseUrl, type DatabaseHost } from './database-hosts.ts';
import { mayMeanFailover } from './database-errors.ts';
import { PrimaryFinder } from './database-primary.ts';
import { warnIfStandbysLag } from './standby-durability.ts';
import { describeEnvironmentError } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import { makeDirectory } from '../common/make-directory.ts';
import { pgliteKnexClient } from './pglite-knex-client.ts';

export type Database = Knex;
/** Anything that runs queries: the database itself or an open transaction. */
export type Executor = Knex | Knex.Transaction;

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  /** Embedded data directory; ":memory:" keeps the embedded database in memory (tests). */
  dataDir: string;
  poolMax?: number;
  /** How PostgreSQL connections notice a dead peer and bound a statement; the defaults when absent. */
  connections?: DatabaseConnections;
  /** Where the watch over the pool says it replaced connections that stopped answering. */
  logger?: Logger | undefined;
}

/** DATABASE_STATEMENT_TIMEOUT, DATABASE_KEEPALIVE and DATABASE_STALL_TIMEOUT (src/config.ts), in milliseconds. */
export interface DatabaseConnections {
  /** PostgreSQL's statement_timeout on the pool's connections (migrations have none); 0: none. */
  statementTimeoutMs: number;
  /** Silence on a connection before TCP keepalive probes start. */
  keepAliveMs: number;
  /** A query unanswered this long has its connection looked at by the watch (connection-watch.ts). */
  stallTimeoutMs: number;
}

export const DEFAULT_CONNECTIONS: DatabaseConnections = { statementTimeoutMs: 30_000, keepAliveMs: 10_000, stallTimeoutMs: 3_000 };

/** Past the statement timeout, how long a silent query may still be on its way back from a live server. */
const CANCEL_MARGIN_MS = 5_000;
/** knex's wait for a pooled connection, and so pg's for a new one: past it the request is refused. */
const ACQUIRE_TIMEOUT_MS = 10_000;

// COUNT(*) and BIGSERIAL come back from pg as strings and from PGlite as numbers: read INT8 as
// a number everywhere. Our int8 values (counts, history ids) stay far below 2^53.
pg.types.setTypeParser(20, (value: string) => Number(value));

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const settings = options.connections ?? DEFAULT_CONNECTIONS;
    const connection = connectionSettings(options.databaseUrl, settings);
    const target = parseDatabaseUrl(options.databaseUrl);
    const logger = options.logger?.child({ component: 'database' });
    const finder = target && new PrimaryFinder(target, connection, settings.stallTimeoutMs, logger);
    const watch = new ConnectionWatch(
      {
        connection: finder ? async () => finder.settingsFor(await finder.primary()) : connection,
        stallTimeoutMs: settings.stallTimeoutMs,
        deadAfterMs: settings.statementTimeoutMs > 0 ? settings.statementTimeoutMs + CANCEL_MARGIN_MS : 0,
      },
      logger,
    );
    const db = knexModule.knex({
      client: 'pg',
      connection: finder ? primaryConnection(finder, connection) : connection,
      pool: {
        min: 0,
        max: options.poolMax ?? 10,
        afterCreate: (client: PooledClient, done: (error: Error | null, client: unknown) => void) => {
          watch.watch(client);
          if (finder) followPrimary(finder, client);
          done(null, client);
        },
        // A connection to a server that is no longer the primary leaves the pool when next taken.
        ...(finder ? { validate: (client: PooledClient) => finder.isCurrent(hostOf.get(client)) } : {}),
      },
      acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
      // A failed statement's error quotes the SQL without its values: by default knex writes the
      // values into the message (phone numbers, SMS text), and error messages are logged.
      compileSqlOnError: false,
      // knex would print its warnings with console.log, onto a CLI's --json output.
      log: { warn() {}, error() {}, deprecate() {}, debug() {} },
    });
    if (finder) {
      unboundedConnection.set(db, primaryConnection(finder, withoutTimeout(connection)));
      // A statement refused by a server now read only, or cut by its shutdown: look again.
      db.on('query-error', (error: unknown, statement: { __knexUid?: string }) => {
        if (mayMeanFailover(error)) finder.lost(statement.__knexUid ? hostOfUid.get(statement.__knexUid) : undefined, error);
      });
    }
    afterClose.set(db, () => watch.stop());
    // Fail at open, with a clear message, rather than at the first query.
    try {
      await db.raw('select 1');
    } catch (error) {
      await closeDatabase(db);
      throw describeEnvironmentError(error, { database: databaseLocation(options.databaseUrl) });
    }
    if (logger) await warnIfStandbysLag(db, logger);
    return db;
  }
  const { PGlite } = await import('@electric-sql/pglite');
  // The extensions the migrations create (legacy search), loaded into the embedded engine.
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { btree_gin } = await import('@electric-sql/pglite/contrib/btree_gin');
  const extensions = { pg_trgm, btree_gin };
  const client = await pgliteKnexClient();
  let pglite: InstanceType<typeof PGlite>;
  let unlock = () => {};
  if (options.dataDir === ':memory:') {
    pglite = await openInMemory(PGlite, extensions);
  } else {
    makeDirectory(options.dataDir);
    unlock = lockDataDir(options.dataDir);
    pglite = new PGlite(options.dataDir, { extensions });
  }
  try {
    await pglite.waitReady;
  } catch (error) {
    unlock();
    throw error;
  }
  if (options.dataDir !== ':memory:') {
    // PGlite unpacks a new cluster's files with modes of its own (0666), whatever the umask, and
    // writes its relation cache files 0644 at start (and may again when the schema changes):
    // they are made private here, after migrations and at close.
    const dataDir = options.dataDir;
    embeddedDirs.set(pglite, dataDir);
    tightenDataDir(dataDir, { create: false });
  }
  const db = knexModule.knex({
    client,
    dialect: 'postgres',
    // knex-pglite accepts a ready PGlite instance through a connection function.
    connection: (() => ({ pglite })) as unknown as Knex.Config['connection'],
    acquireConnectionTimeout: 30_000,
    compileSqlOnError: false,
  });
  // Closes PGlite if knex-pglite has not, then releases the directory lock.
  afterClose.set(db, async () => {
    if (!pglite.closed) await pglite.close();
    keepPrivate(pglite);
    unlock();
  });
  embeddedOf.set(db, pglite);
  return db;
}

// Initialising a PGlite cluster (its initdb) takes over a second, and migrating it most of
// another; loading a copy of one takes a fraction. In-memory databases (tests, the demo) start
// many times in one process, so the first one's cluster is kept and each later one loads it: the
// pristine cluster at first, and once one in-memory database has been migrated, the migrated one,
// in which later ones find nothing left to migrate.
type PGliteClass = typeof import('@electric-sql/pglite').PGlite;
type PGliteInstance = InstanceType<PGliteClass>;
let pristineCluster: Promise<Blob> | undefined;
let migratedCluster: Promise<Blob> | undefined;
const inMemory = new WeakSet<object>();

async function openInMemory(PGlite: PGliteClass, extensions: Record<string, unknown>): Promise<PGliteInstance> {
  const kept = migratedCluster ?? pristineCluster;
  const pglite = kept
    ? new PGlite({ loadDataDir: await kept, extensions } as ConstructorParameters<PGliteClass>[0])
    : new PGlite({ extensions } as ConstructorParameters<PGliteClass>[0]);
  inMemory.add(pglite);
  if (!kept) pristineCluster = keepCopy(pglite, () => (pristineCluster = undefined));
  if (!migratedCluster) await pristineCluster;
  return pglite;
}

/** The cluster's files as they are now; `forget` runs when the copy cannot be made. */
function keepCopy(pglite: PGliteInstance, forget: () => void): Promise<Blob> {
  const copy = pglite.waitReady.then(() => pglite.dumpDataDir('none'));
  copy.catch(forget);
  return copy;
}

/** Keeps the first in-memory database migrated to the latest schema, before anything else writes to it. */
async function keepMigrated(db: Database): Promise<void> {
  const pglite = embeddedOf.get(db) as PGliteInstance | undefined;
  if (migratedCluster || !pglite || !inMemory.has(pglite)) return;
  migratedCluster = keepCopy(pglite, () => (migratedCluster = undefined));
  await migratedCluster.catch(() => undefined);
}

const afterClose = new WeakMap<Database, () => Promise<void>>();
/** The PGlite instance behind a database on the embedded engine, and the directory it writes. */
const embeddedOf = new WeakMap<Database, object>();
const embeddedDirs = new WeakMap<object, string>();

/** Removes group and other permissions PGlite gave files in its directory (none for other databases). */
function keepPrivate(pglite: object | undefined): void {
  const dir = pglite && embeddedDirs.get(pglite);
  try {
    if (dir) tightenDataDir(dir, { create: false });
  } catch {
    // Only PGlite's own new files are at stake here, in a directory others cannot enter (it was
    // checked at open): a failure must not fail a migration or a stop.
  }
}

/** Closes the pool and, for the embedded database, PGlite itself and its directory lock. */
export async function closeDatabase(db: Database): Promise<void> {
  await db.destroy();
  await afterClose.get(db)?.();
  afterClose.delete(db);
}

/**
 * The migrations in their order. Each says in the log when it starts (`onStart`), so that a first
 * start, which runs them all and may take a minute on a slow disk, shows it is working.
 */
class ListedMigrations implements Knex.MigrationSource<readonly [string, Migration]> {
  constructor(private readonly onStart: (name: string) => void = () => {}) {}

  async getMigrations() {
    return [...migrations];
  }
  getMigrationName([name]: readonly [string, Migration]) {
    return name;
  }
  async getMigration([name, migration]: readonly [string, Migration]): Promise<Migration> {
    return {
      ...migration,
      up: (knex: Knex) => {
        this.onStart(name);
        return migration.up(knex);
      },
    };
  }
}

/** Advisory lock ids: any numbers, the same in every node. */
export const LOCKS = { migrations: 7_236_013, firstStart: 7_236_014 } as const;

/**
 * Runs `work` while holding a PostgreSQL advisory lock, so that nodes sharing the database take
 * turns at it. The lock is a session's, held on a connection of its own for the whole of `work`
 * (which uses the pool as usual). PGlite belongs to one process and needs none.
 */
export async function exclusively<T>(db: Database, lockId: number, work: () => Promise<T>): Promise<T> {
  if (db.client.config.client !== 'pg') return work();
  const connection = await db.client.acquireConnection();
  try {
    await connection.query(`select pg_advisory_lock(${lockId})`);
    return await work();
  } finally {
    await connection.query(`select pg_advisory_unlock(${lockId})`).catch(() => undefined);
    await db.client.releaseConnection(connection);
  }
}

/** Brings the schema up to date; returns the names of the migrations it applied. */
export async function migrate(db: Database, logger?: Logger): Promise<string[]> {
  // Several nodes starting together on one PostgreSQL would run knex's first migration at the
  // same moment: both create its bookkeeping tables (one fails on a duplicate type), or both
  // take its lock row and leave the database refusing every later start. They take turns; the
  // second finds nothing left to do.
  const migrator = withoutStatementTimeout(db);
  try {
    return await exclusively(migrator, LOCKS.migrations, async () => {
      // Migrations of a newer release this node does not know: knex's own check would refuse
      // them all; expand steps are fine for this node's code, contract steps are not (newer-database.ts).
      await admitNewerDatabase(migrator, migrations.map(([name]) => name), logger);
      const pending = ((await migrator.migrate.list({ migrationSource: new ListedMigrations(), disableMigrationsListValidation: true })) as [unknown[], unknown[]])[1].length;
      if (pending > 0) logger?.info({ pending }, `migrating the database: ${pending} ${pending === 1 ? 'migration' : 'migrations'} to run`);
      let started = 0;
      const source = new ListedMigrations((name) => logger?.info({ migration: name }, `migrating the database (${++started}/${pending}): ${name}`));
      const [, applied] = (await migrator.migrate.latest({ migrationSource: source, disableMigrationsListValidation: true })) as [number, string[]];
      if (applied.length > 0) logger?.info({ migrations: applied }, 'database migrated');
      keepPrivate(embeddedOf.get(db));
      await keepMigrated(db);
      return applied;
    });
  } finally {
    if (migrator !== db) await migrator.destroy();
  }
}

/**
 * Connections to `db`'s PostgreSQL without its statement timeout, for the migrations: building
 * an index on a large table may take minutes, and a migration cut short would stop every start
 * the same way. So would the wait for another node's migrations, behind the advisory lock.
 */
function withoutStatementTimeout(db: Database): Database {
  const connection = db.client.config.connection as PgSettings | string;
  const primary = unboundedConnection.get(db);
  if (db.client.config.client !== 'pg' || (!primary && (typeof connection !== 'object' || !connection.statement_timeout))) return db;
  return knexModule.knex({
    client: 'pg',
    connection: primary ?? withoutTimeout(connection as PgSettings),
    // The advisory lock's connection, knex's migration lock and a migration's transaction.
    pool: { min: 0, max: 4 },
    acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
    compileSqlOnError: false,
    log: { warn() {}, error() {}, deprecate() {}, debug() {} },
  });
}

/**
 * Runs `work` in a transaction that commits without waiting for the WAL flush. Only for
 * bookkeeping that is safe to lose in a database crash because it is redone anyway (a webhook
 * lease or attempt record: the delivery is sent again; a heartbeat: the phone sends another).
 * Never for SMS rows or status changes: those are acknowledged to clients and devices.
 */
export function withRelaxedCommit<T>(db: Database, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    await trx.raw('set local synchronous_commit = off');
    return work(trx);
  });
}

/** Runs `work` in `executor`'s transaction, or in a new one when `executor` is none. */
export function inTransaction<T>(executor: Executor, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const transaction = executor as Knex.Transaction;
  return transaction.isTransaction ? work(transaction) : (executor as Knex).transaction(work);
}

/** Runs `effect` once `executor`'s transaction has committed (at once outside a transaction). */
export function afterCommit(executor: Executor, effect: () => void): void {
  const transaction = executor as Partial<Knex.Transaction>;
  if (transaction.isTransaction && transaction.executionPromise) transaction.executionPromise.then(effect, () => {});
  else effect();
}

export function isPostgresError(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/** What the gateway sets of pg's client settings (which knex passes on as they are). */
interface PgSettings {
  connectionString: string;
  keepAlive: boolean;
  keepAliveInitialDelayMillis: number;
  connectionTimeoutMillis: number;
  statement_timeout?: number;
}

/**
 * pg's settings for the gateway's connections. TCP keepalive notices an idle connection whose
 * peer is gone (a failover, a firewall that dropped its state), which nothing else would before
 * TCP gives up; the statement timeout bounds how long a live server works on one statement, so
 * that a query silent for longer is known dead (connection-watch.ts).
 */
function connectionSettings(databaseUrl: string, settings: DatabaseConnections): PgSettings {
  return {
    connectionString: databaseUrl,
    keepAlive: true,
    keepAliveInitialDelayMillis: settings.keepAliveMs,
    connectionTimeoutMillis: ACQUIRE_TIMEOUT_MS,
    ...(settings.statementTimeoutMs > 0 ? { statement_timeout: settings.statementTimeoutMs } : {}),
  };
}

function withoutTimeout(settings: PgSettings): PgSettings {
  const { statement_timeout: _bounded, ...unbounded } = settings;
  return unbounded;
}

/** What the pool holds of pg's Client: the watch's view of it, and the id knex gives it. */
type PooledClient = Parameters<ConnectionWatch['watch']>[0] & { __knexUid?: string; on(event: 'error', listener: (error: Error) => void): unknown };

/** The server each pooled connection of a DATABASE_URL with several hosts is on, by client and by knex's id. */
const hostOf = new WeakMap<object, DatabaseHost>();
const hostOfUid = new Map<string, DatabaseHost>();
/** The migrations' connections (no statement timeout) to the primary of a database with several hosts. */
const unboundedConnection = new WeakMap<Database, Knex.Config['connection']>();

/**
 * knex's settings for a new connection: to the primary as last found, until it is lost (then
 * knex asks again before the next new connection).
 */
function primaryConnection(finder: PrimaryFinder, settings: PgSettings): Knex.Config['connection'] {
  return (async () => {
    const host = await finder.primary();
    return { ...finder.settingsFor(host, settings), expirationChecker: () => !finder.isCurrent(host) };
  }) as unknown as Knex.Config['connection'];
}

/** Notes which server a new pooled connection is on, and has its failure tell the finder. */
function followPrimary(finder: PrimaryFinder, client: PooledClient): void {
  const host = (client as unknown as { connectionParameters?: { host?: string; port?: number } }).connectionParameters;
  const known = host && finder.hostAt(host.host, host.port);
  if (!known) return;
  hostOf.set(client, known);
  const uid = client.__knexUid;
  if (uid) hostOfUid.set(uid, known);
  // An idle connection told of its server's shutdown, or reset: the server may be going.
  client.on('error', (error) => {
    if (mayMeanFailover(error)) finder.lost(known, error);
  });
  client.once('end', () => {
    if (uid) hostOfUid.delete(uid);
  });
}
