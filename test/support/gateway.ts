// Starts a real gateway in-process on port 0 against the test database.
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import type { Clock } from '../../src/common/clock.ts';
import type { DestinationStream } from 'pino';
import { TEST_PASSWORD_HASH_COST, testDatabaseUrl } from './environment.ts';
import { TEST_METRICS_TOKEN } from './metrics.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Recordings a test uploads go to a temporary directory, never to ./data of the checkout. One
// per test process; tests that look at the files give their gateway a directory of its own.
let recordingsDirectory: string | undefined;

/** `logTo`: where its log lines go (at overrides.logLevel), for a test that reads them. */
export async function startGateway(overrides: Partial<Config> = {}, clock?: Clock, logTo?: DestinationStream): Promise<Gateway> {
  const databaseUrl = testDatabaseUrl();
  const defaults = loadConfig({});
  const config: Config = {
    ...defaults,
    port: 0,
    host: '127.0.0.1',
    mqttPort: 0,
    databaseUrl,
    dataDir: ':memory:',
    logLevel: (process.env.TEST_LOG_LEVEL as Config['logLevel'] | undefined) ?? 'silent',
    // Admission control judges load by latency and event-loop delay, which a busy test process
    // (clients, gateway and, with PGlite, the database on one thread) would trip at random; its
    // own tests turn it on.
    admission: { maxInFlight: 100_000, targetLatencyMs: 0, maxEventLoopDelayMs: 0 },
    sessions: { ...defaults.sessions, passwordHashCost: TEST_PASSWORD_HASH_COST },
    recordings: { ...defaults.recordings, directory: (recordingsDirectory ??= mkdtempSync(join(tmpdir(), 'sgw-test-recordings-'))) },
    // /metrics is served only with a token (or on a port of its own): tests scrape with this one.
    metrics: { ...defaults.metrics, token: TEST_METRICS_TOKEN },
    ...overrides,
  };
  return Gateway.start(config, createLogger(config.logLevel, logTo), clock);
}
