// Opens what a one-shot command needs (config, database, the account services), runs it, closes it.
import { loadConfig } from '../config.ts';
import { createLogger, type Logger } from '../common/logger.ts';
import { closeDatabase, migrate, openDatabase, type Database } from '../storage/database.ts';
import { accountServices, type AccountServices } from '../composition/command-features.ts';
import { CacheInvalidation } from '../cluster/invalidation.ts';
import { systemClock } from '../common/clock.ts';
import { DataDirLockedError } from '../storage/data-dir-lock.ts';
import { prepareDataDir } from '../storage/data-dir-permissions.ts';
import { extendedApiBaseUrl } from './gateway-address.ts';
import { CliError } from './output.ts';
import { verifySecretKey } from '../modules/webhooks/outbound/secret-key-check.ts';

/** Runs `run` on the migrated database; returns its result and the migrations applied first. */
export async function withDatabase<T>(run: (db: Database, logger: Logger, applied: string[]) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // One-shot commands print their own results; their log carries only warnings and worse.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr as never, undefined, config.logFormat);
  prepareDataDir(config.dataDir, !config.databaseUrl, logger);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 2, connections: config.database });
  try {
    const applied = await migrate(db, logger);
    return await run(db, logger, applied);
  } finally {
    await closeDatabase(db);
  }
}

/**
 * Runs `run` on the account services (services.ts makes the rest of the gateway's; a command needs
 * none of them, and loading them would cost every command half a second). While a gateway holds
 * the embedded database this process cannot open it; `overHttp` then gives the command that does
 * the same through the running gateway (given the Extended API's base URL), and the refusal shows
 * it. `invalidation`: how the changes are told to the other gateways (cluster-notice.ts).
 */
export async function withAccountServices<T>(
  run: (services: AccountServices, db: Database, logger: Logger) => Promise<T>,
  overHttp?: (api: string) => string, invalidation?: CacheInvalidation): Promise<T> {
  try {
    return await withDatabase(async (db, logger) => {
      const services = commandServices(db, logger, invalidation);
      // Before anything is sealed: a command with another DATA_DIR must not seal with a key of its own.
      await verifySecretKey(db, services.secrets);
      return run(services, db, logger);
    });
  } catch (error) {
    if (!(error instanceof DataDirLockedError) || !overHttp) throw error;
    throw new CliError(`${error.message}\nThrough the running gateway instead:\n  ${overHttp(extendedApiUrl())}`, 1);
  }
}

/** The account services as a command has them: no broker, no webhook sender, no other node unless told. */
function commandServices(db: Database, logger: Logger, invalidation = new CacheInvalidation(logger.child({ component: 'cluster' }))): AccountServices {
  return accountServices({ config: loadConfig(), db, logger, clock: systemClock, parts: { invalidation } });
}

/** The running gateway's Extended API, where its operator reaches it. */
function extendedApiUrl(): string {
  return extendedApiBaseUrl(loadConfig());
}
