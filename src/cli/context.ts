// Opens what a one-shot command needs (config, database, services), runs it, closes it.
import { loadConfig } from '../config.ts';
import { createLogger, type Logger } from '../common/logger.ts';
import { closeDatabase, migrate, openDatabase, type Database } from '../storage/database.ts';
import { createServices, type Services } from '../services.ts';

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

export function withServices<T>(run: (services: Services) => Promise<T>): Promise<T> {
  return withDatabase((db, logger) => run(createServices(loadConfig(), db, logger)));
}
