// Outages a test causes and ends without stopping a server the rest of the suite shares: the
// gateway under test reaches PostgreSQL or Redis through a TCP link of the test's own, and the
// test cuts that link (PostgresLink, RedisLink). For PostgreSQL, useDatabaseOutage gives each
// test a gateway behind a link, with its log kept, and puts everything back afterwards.
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Config } from '../../src/config.ts';
import type { Gateway } from '../../src/gateway.ts';
import { testDatabaseUrl } from './environment.ts';
import { startGateway } from './gateway.ts';
import { GatewayLog } from './gateway-log.ts';
import { freePort } from './ports.ts';
import { PostgresLink } from './postgres-link.ts';
import { createTenant, type Tenant } from './tenant.ts';

/**
 * A TCP link between gateways and Redis that the test cuts and restores: Redis keeps its data
 * and keeps running (other test runs share it), while the gateways lose it, as in a network
 * partition. Cut: every connection closed, none accepted; restored: accepted again, on the same port.
 */
export class RedisLink {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly target: URL,
    readonly port: number,
  ) {}

  static async open(redisUrl: string): Promise<RedisLink> {
    const link = new RedisLink(new URL(redisUrl), await freePort());
    await link.restore();
    return link;
  }

  /** redis://127.0.0.1:<port> of the link, with the target's path (database number). */
  get url(): string {
    return `redis://127.0.0.1:${this.port}${this.target.pathname}`;
  }

  /** Accepts connections again and pipes each to Redis. */
  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(Number(this.target.port || 6379), this.target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
  }

  /** Closes every connection and stops accepting: the gateways see Redis gone. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  /** The same as a cut: for fixtures that close what they track with stop(). */
  stop(): Promise<void> {
    return this.cut();
  }
}

export interface DatabaseOutage {
  /** The link the gateway's database connections pass through: cut it, blackhole it, restore it. */
  readonly link: PostgresLink;
  readonly gateway: Gateway;
  /** A tenant made before the test, while the link was up. */
  readonly tenant: Tenant;
  /** Every line the gateway logged since its start. */
  readonly log: GatewayLog;
}

/**
 * Before each test: a gateway whose PostgreSQL connections pass through a PostgresLink, logging
 * into a GatewayLog (at the logLevel of `overrides`, none unless asked), and a tenant. After it: the connections a blackhole swallowed
 * reset (the pool would wait on them at stop), the link restored, the gateway stopped, the link
 * closed. PostgreSQL only: call onlyOnPostgres() first in the describe.
 */
export function useDatabaseOutage(overrides: Partial<Config> = {}): DatabaseOutage {
  let current: DatabaseOutage | undefined;
  const now = (): DatabaseOutage => {
    if (!current) throw new Error('useDatabaseOutage: read inside a test (its gateway starts before each one)');
    return current;
  };
  beforeEach(async () => {
    const link = await PostgresLink.open(testDatabaseUrl()!);
    const log = new GatewayLog();
    let gateway: Gateway | undefined;
    try {
      gateway = await startGateway({ ...overrides, databaseUrl: link.url }, undefined, log);
      current = { link, gateway, log, tenant: await createTenant(gateway) };
    } catch (error) {
      await gateway?.stop();
      await link.close();
      throw error;
    }
  });
  afterEach(async () => {
    if (!current) return;
    const { link, gateway } = current;
    current = undefined;
    link.resetSwallowed();
    await link.restore();
    await gateway.stop();
    await link.close();
  });
  return {
    get link() {
      return now().link;
    },
    get gateway() {
      return now().gateway;
    },
    get tenant() {
      return now().tenant;
    },
    get log() {
      return now().log;
    },
  };
}
