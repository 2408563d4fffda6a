// Starts a real gateway in-process on port 0 against the test database.
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import type { Clock } from '../../src/common/clock.ts';
import { testDatabaseUrl } from './environment.ts';

export async function startGateway(overrides: Partial<Config> = {}, clock?: Clock): Promise<Gateway> {
  const databaseUrl = testDatabaseUrl();
  const config: Config = {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    mqttPort: 0,
    databaseUrl,
    dataDir: ':memory:',
    logLevel: (process.env.TEST_LOG_LEVEL as Config['logLevel'] | undefined) ?? 'silent',
    ...overrides,
  };
  return Gateway.start(config, createLogger(config.logLevel), clock);
}
