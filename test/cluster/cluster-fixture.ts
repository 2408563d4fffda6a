// Two gateway nodes in this process on one PostgreSQL and the Redis on 127.0.0.1:6379 (CI starts
// it; TEST_REDIS_URL names another). Node A is useGateway's gateway, node B a second one.
//
// Several nodes cannot share the embedded database, so under TEST_DATABASE=pglite these tests
// still run, on a PostgreSQL database of their own (created here, dropped at the end): they
// test what only PostgreSQL deployments have. Each describe gets its own Redis channel prefix,
// so that test runs sharing the Redis never hear each other.
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Gateway } from '../../src/gateway.ts';
import { ownDatabase } from '../support/empty-database.ts';
import { testDatabase, testDatabaseUrl } from '../support/environment.ts';
import { ApiClient, type Tenant } from '../support/tenant.ts';
import { useGateway, type GatewayFixture } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface ClusterFixture {
  /** Node A: the fixture's own gateway (tenants are made through it). */
  fx: GatewayFixture;
  /** Node B. */
  readonly b: Gateway;
  /** Configuration every node of this describe shares (database, Redis, prefix); add nodeId. */
  readonly shared: Partial<Config>;
  /** The tenant's Extended API on node B, with the same key. */
  onB(tenant: Tenant, key?: string): ApiClient;
}

/** Registers the hooks; `overrides` apply to both nodes. */
export function useCluster(overrides: Partial<Config> = {}): ClusterFixture {
  const run = randomBytes(4).toString('hex');
  // Nodes share the key that encrypts webhook secrets (WEBHOOK_SECRET_KEY), as a deployment must.
  const webhooks = { ...loadConfig({}).webhooks, ...overrides.webhooks, secretKey: randomBytes(32) };
  const shared: Partial<Config> = { redisUrl: TEST_REDIS_URL, redisPrefix: `sgw-test-${run}`, ...overrides, webhooks };
  let b: Gateway | undefined;

  before(async function () {
    this.timeout(60_000);
    const target = testDatabase();
    if (target.kind === 'postgres') {
      shared.databaseUrl = testDatabaseUrl();
      return;
    }
    const own = await ownDatabase('cluster');
    shared.databaseUrl = own.url;
    // Registered before the gateways start: dropped after they stop.
    fx.onCleanup(() => own.drop());
  });
  const fx = useGateway({ config: () => ({ ...shared, nodeId: `node-a-${run}` }) });
  before(async function () {
    this.timeout(60_000);
    b = await fx.startGateway({ ...shared, nodeId: `node-b-${run}` });
  });

  return {
    fx,
    get b() {
      if (!b) throw new Error('useCluster: node B is not started yet');
      return b;
    },
    shared,
    onB: (tenant, key = tenant.key) => new ApiClient(`http://127.0.0.1:${b!.httpPort}/api/ext/v1`, key),
  };
}

/** Polls `probe` every 10 ms until it holds; resolves with the milliseconds it took, rejects after `timeoutMs`. */
export async function within(timeoutMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  await eventually('the probe to hold', probe, timeoutMs);
  return performance.now() - started;
}
