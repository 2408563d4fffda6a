// Opens what a one-shot command needs (config, database, services), runs it, closes it.
import { loadConfig } from '../config.ts';
import { createLogger, type Logger } from '../common/logger.ts';
import { closeDatabase, migrate, openDatabase, type Database } from '../storage/database.ts';
import { createServices, type Services } from '../services.ts';
import { DataDirLockedError } from '../storage/data-dir-lock.ts';
import { EXTENDED_PREFIX } from '../http/app.ts';
import { CliError } from './output.ts';

/** Runs `run` on the migrated database; returns its result and the migrations applied first. */
export async function withDatabase<T>(run: (db: Database, logger: Logger, applied: string[]) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // One-shot commands print their own results; their log carries only warnings and worse.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr as never);
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
export async function withServices<T>(run: (services: Services) => Promise<T>, overHttp?: (api: string) => string): Promise<T> {
  try {
    return await withDatabase((db, logger) => run(createServices(loadConfig(), db, logger)));
  } catch (error) {
    if (!(error instanceof DataDirLockedError) || !overHttp) throw error;
    throw new CliError(`${error.message}\nThrough the running gateway instead:\n  ${overHttp(extendedApiUrl())}`, 1);
  }
}

/** The running gateway's Extended API as seen from this machine. */
function extendedApiUrl(): string {
  const { host, port } = loadConfig();
  const local = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${local}:${port}${EXTENDED_PREFIX}`;
}
