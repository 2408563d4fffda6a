// A deployment of several real `sms-gateway serve` processes, as an operator runs one: one
// PostgreSQL database of its own (created here, dropped at the end), one Redis with a channel
// prefix of this run only (test runs sharing the Redis never hear each other), one
// WEBHOOK_SECRET_KEY, and per node its NODE_ID and DATA_DIR. Timings are short so that presence
// leases, failover and task retries happen within a test: PRESENCE_LEASE=3, FAILOVER_AFTER=2,
// TASK_RETRY_AFTER=2.
//
// useDeployment() registers the mocha hooks: the nodes start in `before`, every process is
// killed in `after` whatever happened, and a failed test prints the last log lines of each node.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/common/logger.ts';
import { PERMISSIONS } from '../../../src/modules/api-keys/permissions.ts';
import { createServices, type Services } from '../../../src/services.ts';
import { closeDatabase, migrate, openDatabase, type Database } from '../../../src/storage/database.ts';
import { ownDatabase, type EmptyDatabase } from '../../support/empty-database.ts';
import { Receiver } from '../../support/receiver.ts';
import type { ApiClient } from '../../support/tenant.ts';
import { GatewayNode } from './node-process.ts';
import { TEST_METRICS_TOKEN } from '../../support/metrics.ts';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Seconds, as the nodes are configured: the tests' deadlines are derived from them. */
export const PRESENCE_LEASE_S = 3;
export const FAILOVER_AFTER_S = 2;
export const TASK_RETRY_AFTER_S = 2;
/** How late after FAILOVER_AFTER a task may move: a sweep (1 s) and a claim, on two busy cores. */
export const MOVE_SLACK_MS = 4_000;

export interface DeploymentOptions {
  /** Node names, such as ['a', 'b', 'c']; each becomes NODE_ID <name>-<run>. */
  nodes: string[];
  /** The Redis of the deployment; TEST_REDIS_URL when absent. A function is called in `before`. */
  redisUrl?: () => string;
  /**
   * The database is left empty, as on a deployment's first day: the nodes migrate it and make its
   * first account themselves. Otherwise it is migrated, with an account, before they start.
   */
  fresh?: boolean;
  /** Settings of every node on top of the deployment's own (such as a longer TASK_RETRY_AFTER). */
  env?: Record<string, string>;
}

/** An account of the deployment with a key holding every permission, usable on every node. */
export interface MultiTenant {
  accountId: string;
  key: string;
  /** The Extended API of node `name` with the tenant's key. */
  on(name: string): ApiClient;
}

export class Deployment {
  readonly run = randomBytes(4).toString('hex');
  readonly redisPrefix = `sgw-multinode-${this.run}`;
  readonly webhookSecretKey = randomBytes(32).toString('hex');
  private readonly nodes = new Map<string, GatewayNode>();
  private created: EmptyDatabase | undefined;
  private connection: Database | undefined;
  private services: Services | undefined;
  private readonly dataDirs: string[] = [];
  private readonly perTest: (() => unknown)[] = [];
  /** Starts under way: the teardown waits for them, so that no node outlives the describe. */
  private readonly starting = new Set<Promise<GatewayNode>>();
  redisUrl = TEST_REDIS_URL;

  constructor(readonly options: DeploymentOptions) {}

  node(name: string): GatewayNode {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no node "${name}" (read it inside a test)`);
    return node;
  }

  get databaseUrl(): string {
    if (!this.created) throw new Error('the database is created in before()');
    return this.created.url;
  }

  /** A fresh account with a key holding every permission, made directly on the database (set-up). */
  async tenant(): Promise<MultiTenant> {
    const services = this.services!;
    const account = await services.accounts.create(`multinode-${randomBytes(4).toString('hex')}`);
    const { key } = await services.apiKeys.create(account.id, [...PERMISSIONS]);
    return { accountId: account.id, key, on: (name) => this.node(name).api(key) };
  }

  /** A local webhook receiver, stopped after the test. */
  async receiver(): Promise<Receiver> {
    const receiver = new Receiver();
    await receiver.start();
    this.afterTest(() => receiver.stop());
    return receiver;
  }

  /** Runs `cleanup` after the running test, even when it failed. */
  afterTest(cleanup: () => unknown): void {
    this.perTest.push(cleanup);
  }

  /**
   * Stops node `name` cleanly (SIGTERM: with SHUTDOWN_DRAIN set it first answers /readyz 503 for
   * that long), then starts it again on the same ports, where its phones reconnect. `whileStopping`
   * runs once the signal is sent, before the node is gone.
   */
  async restartNode(name: string, whileStopping: (node: GatewayNode) => Promise<void> = async () => undefined): Promise<GatewayNode> {
    const old = this.node(name);
    const stopped = old.stop();
    await whileStopping(old);
    await stopped;
    return this.startNode(name, { PORT: String(old.port), MQTT_PORT: String(old.mqttPort) });
  }

  /** Starts (or, after a kill, starts again) node `name` with the deployment's settings, and `env`. */
  async startNode(name: string, env: Record<string, string> = {}): Promise<GatewayNode> {
    const dataDir = mkdtempSync(join(tmpdir(), `sgw-multinode-${name}-`));
    this.dataDirs.push(dataDir);
    const started = GatewayNode.start(`${name}-${this.run}`, {
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: this.redisUrl,
      REDIS_PREFIX: this.redisPrefix,
      WEBHOOK_SECRET_KEY: this.webhookSecretKey,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      PRESENCE_LEASE: String(PRESENCE_LEASE_S),
      FAILOVER_AFTER: String(FAILOVER_AFTER_S),
      TASK_RETRY_AFTER: String(TASK_RETRY_AFTER_S),
      // The tests' webhook receivers listen on 127.0.0.1; a failed attempt is retried soon.
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_BASE_MS: '50',
      // Admission control judges load by latency and event-loop delay, which several nodes and
      // the test on two shared cores would trip at random (503 overloaded); its own tests turn it on.
      HTTP_MAX_IN_FLIGHT: '100000',
      HTTP_TARGET_LATENCY: '0',
      MAX_EVENT_LOOP_DELAY: '0',
      METRICS_TOKEN: TEST_METRICS_TOKEN,
      ...this.options.env,
      ...env,
    });
    this.starting.add(started);
    try {
      const node = await started;
      this.nodes.set(name, node);
      return node;
    } finally {
      this.starting.delete(started);
    }
  }

  /** @internal */
  async setUp(): Promise<void> {
    if (this.options.redisUrl) this.redisUrl = this.options.redisUrl();
    this.created = await ownDatabase('multinode');
    await this.openDatabase();
    if (!this.options.fresh) {
      // Migrated here, before any node starts, and given an account: the nodes find an instance
      // that is not new and make no first-start account of their own.
      await migrate(this.db);
      await this.services!.accounts.create(`multinode-first-${this.run}`);
    }
    await Promise.all(this.options.nodes.map((name) => this.startNode(name)));
  }

  /** The deployment's database as the tests read it directly (set-up, and checks of what the nodes stored). */
  get db(): Database {
    if (!this.connection) throw new Error('the database is opened in before()');
    return this.connection;
  }

  private async openDatabase(): Promise<void> {
    this.connection = await openDatabase({ databaseUrl: this.databaseUrl, dataDir: ':memory:' });
    const config = { ...loadConfig({}), databaseUrl: this.databaseUrl, logLevel: 'warn' as const };
    this.services = createServices(config, this.connection, createLogger('warn'));
  }

  /** @internal */
  async afterEach(failed: boolean): Promise<void> {
    for (const cleanup of this.perTest.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
    if (failed) for (const node of this.nodes.values()) process.stderr.write(`${node.tail(25)}\n`);
  }

  /** @internal every node is killed (a clean stop would only slow the suite), then the database dropped. */
  async tearDown(): Promise<void> {
    await Promise.allSettled([...this.starting]);
    await Promise.all([...this.nodes.values()].map((node) => node.kill()));
    if (this.connection) await closeDatabase(this.connection).catch(() => undefined);
    await this.created?.drop();
    for (const dir of this.dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** Registers the hooks of a deployment in the enclosing describe and returns its handle. */
export function useDeployment(options: DeploymentOptions): Deployment {
  const deployment = new Deployment(options);
  before(async function () {
    // Registered first: even a start that failed halfway kills what it started.
    this.test?.parent?.afterAll('useDeployment: kill the nodes, drop the database', () => deployment.tearDown());
    this.timeout(90_000);
    await deployment.setUp();
  });
  afterEach(async function () {
    await deployment.afterEach(this.currentTest?.state === 'failed');
  });
  return deployment;
}
