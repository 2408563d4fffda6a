// Opens what a one-shot command needs (config, database, services), runs it, closes it.
import { loadConfig } from '../config.ts';
import { createLogger, type Logger } from '../common/logger.ts';
import { closeDatabase, migrate, openDatabase, type Database } from '../storage/database.ts';
import { createServices, type ServiceParts, type Services } from '../services.ts';
import { DataDirLockedError } from '../storage/data-dir-lock.ts';
import { prepareDataDir } from '../storage/data-dir-permissions.ts';
import { extendedApiBaseUrl } from './gateway-address.ts';
import { CliError } from './output.ts';

/** Runs `run` on the migrated database; returns its result and the migrations applied first. */
export async function withDatabase<T>(run: (db: Database, logger: Logger, applied: string[]) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // One-shot commands print their own results; their log carries only warnings and worse.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr as never, undefined, config.logFormat);
  prepareDataDir(config.dataDir, !config.databaseUrl, logger);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 2 });
  try {
    const applied = await migrate(db, logger);
    return await run(db, logger, applied);
  } finally {
    await closeDatabase(db);
  }
}

/**
 * Runs `run` on the services. While a gateway holds the embedded database this process cannot
 * open it; `overHttp` then gives the command that does the same through the running gateway
 * (given the Extended API's base URL), and the refusal shows it.
 */
export async function withServices<T>(run: (services: Services) => Promise<T>, overHttp?: (api: string) => string, parts: ServiceParts = {}): Promise<T> {
  try {
    return await withDatabase((db, logger) => run(createServices(loadConfig(), db, logger, undefined, parts)));
  } catch (error) {
    if (!(error instanceof DataDirLockedError) || !overHttp) throw error;
    throw new CliError(`${error.message}\nThrough the running gateway instead:\n  ${overHttp(extendedApiUrl())}`, 1);
  }
}

/** The running gateway's Extended API, where its operator reaches it. */
function extendedApiUrl(): string {
  return extendedApiBaseUrl(loadConfig());
}
