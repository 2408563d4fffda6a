// A gateway whose PostgreSQL connections pass through a PostgresLink the test can cut, with every
// log line it writes kept: for the tests of what the gateway answers and says while the database
// is unreachable. PostgreSQL only, as the link is.
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import { testDatabaseUrl } from './environment.ts';
import { PostgresLink } from './postgres-link.ts';
import { GatewayLog } from './gateway-log.ts';

export interface LogLine {
  level: number;
  msg: string;
  component?: string;
}

export interface GatewayBehindLink {
  link: PostgresLink;
  gateway: Gateway;
  /** Every line logged since the start, parsed, in order. */
  logLines: LogLine[];
  /** Restores the link, stops the gateway, closes the link. */
  close(): Promise<void>;
}

export async function startBehindLink(overrides: Partial<Config> = {}): Promise<GatewayBehindLink> {
  const link = await PostgresLink.open(testDatabaseUrl()!);
  const log = new GatewayLog();
  const logLines: LogLine[] = log.lines;
  const config = { ...loadConfig({}), port: 0, host: '127.0.0.1', mqttPort: 0, databaseUrl: link.url, dataDir: ':memory:', logLevel: 'info' as const, ...overrides };
  const gateway = await Gateway.start(config, createLogger('info', log));
  return {
    link,
    gateway,
    logLines,
    async close() {
      await link.restore();
      await gateway.stop();
      await link.close();
    },
  };
}
