// The running gateway: database, services and the HTTP server, started and stopped as one.
// Tests start it in-process on port 0; `sms-gateway serve` starts it for real.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import type { Config } from './config.ts';
import { closeDatabase, migrate, openDatabase } from './storage/database.ts';
import type { Logger } from './shared/logger.ts';
import { createApp, EXTENDED_PREFIX } from './http/app.ts';
import { mountHealth } from './modules/health/routes.ts';
import { deviceRoutes } from './modules/devices/routes.ts';
import { messageRoutes } from './modules/messages/routes.ts';
import { createServices, type Services } from './services.ts';

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** How long a stop waits for in-flight requests before it cuts the remaining connections. */
const DRAIN_TIMEOUT_MS = 10_000;

export class Gateway {
  private constructor(
    readonly config: Config,
    readonly logger: Logger,
    readonly services: Services,
    private readonly http: Server,
  ) {}

  static async start(config: Config, logger: Logger): Promise<Gateway> {
    const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    try {
      await migrate(db, logger);
      const services = createServices(config, db, logger);
      const app = createApp({
        logger: logger.child({ component: 'http' }),
        authenticator: services.apiKeys,
        bodyLimitBytes: config.bodyLimitBytes,
        version: VERSION,
        families: [
          { prefix: EXTENDED_PREFIX, routes: [...deviceRoutes(services.devices), ...messageRoutes(services.messages)] },
        ],
        mountExtra: (router) => mountHealth(router, db),
      });
      const http = createServer({ keepAliveTimeout: 65_000 }, app.callback());
      await new Promise<void>((resolve, reject) => {
        http.once('error', reject);
        http.listen(config.port, config.host, () => {
          http.off('error', reject);
          resolve();
        });
      });
      const gateway = new Gateway(config, logger, services, http);
      logger.info({ port: gateway.httpPort, database: config.databaseUrl ? 'postgresql' : 'embedded' }, 'gateway listening');
      return gateway;
    } catch (error) {
      await closeDatabase(db);
      throw error;
    }
  }

  get httpPort(): number {
    return (this.http.address() as AddressInfo).port;
  }

  /** Stops accepting, lets in-flight requests finish, then closes the database. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    this.http.closeIdleConnections();
    const timer = setTimeout(() => this.http.closeAllConnections(), DRAIN_TIMEOUT_MS);
    await closed;
    clearTimeout(timer);
    this.services.events.removeAllListeners();
    await closeDatabase(this.services.db);
    this.logger.info('gateway stopped');
  }
}
