// Drill: the database's open connections stop answering while new ones work.
//
// The incident this guards against: a failover behind a virtual address, or a firewall that
// forgot the connections' state, left the gateway's 10 pooled connections silent. Each query on
// one waited until TCP gave up (about 15 minutes), every other request waited 10 s for the pool
// and was answered 503: the API was down for the whole 60 s of the drill, though a new connection
// would have worked at once. Now the pool's watch finds the silent connections within
// DATABASE_STALL_TIMEOUT (3 s), asks the server what their backends do, closes them and the pool
// opens new ones.
//
// Here the gateway reaches its own PostgreSQL cluster through a TCP link that, at the fault,
// swallows every open connection (it stays open, nothing more crosses it either way) while it
// forwards new ones. Twelve clients (more than the pool's connections) call the API one request
// after another throughout (GET /devices and POST /sms in turn, each given up after 20 s). The
// drill prints how long after the fault the API answered every request again (recovery: the
// last refused answer), the longest request and the load average. It passes when the API
// recovers within 10 s of the fault and no request waited 15 s.
//
//   npx tsx scripts/drills/database-blackhole.ts
//
// Settings: DATABASE_BLACKHOLE_SECONDS (calls measured after the fault, 30),
// DATABASE_BLACKHOLE_WARMUP_SECONDS (calls before it, which fill the pool, 5).
import { loadavg } from 'node:os';
import knexModule from 'knex';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import { PostgresLink } from '../../test/support/postgres-link.ts';
import { PrivatePostgres } from './support/private-postgres.ts';
import { readNumber, runDrill } from './support/drill-kit.ts';

const NAME = 'database-blackhole';
const AFTER_S = readNumber(NAME, 'DATABASE_BLACKHOLE_SECONDS', 30, 5, 600);
const WARMUP_S = readNumber(NAME, 'DATABASE_BLACKHOLE_WARMUP_SECONDS', 5, 1, 60);
const CLIENTS = 12;
const CALL_TIMEOUT_MS = 20_000;
/** The API answers every request again within this of the fault. */
const RECOVERY_TARGET_MS = 10_000;
/** No request may wait this long: the fault must not hang each request for its whole length. */
const LONGEST_TARGET_MS = 15_000;

const load = () => `load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`;
const seconds = (ms: number) => (ms / 1000).toFixed(1);

interface Call {
  startedAt: number;
  endedAt: number;
  status: string;
}

async function main(): Promise<string | undefined> {
  const postgres = await PrivatePostgres.create(NAME);
  let link: PostgresLink | undefined;
  let gateway: Gateway | undefined;
  try {
    const admin = knexModule.knex({ client: 'pg', connection: postgres.url, pool: { min: 0, max: 1 } });
    await admin.raw('create database sms_gateway_drill');
    await admin.destroy();
    link = await PostgresLink.open(postgres.database('sms_gateway_drill'));
    const config = { ...loadConfig({}), port: 0, host: '127.0.0.1', mqttPort: 0, databaseUrl: link.url, dataDir: ':memory:', logLevel: 'warn' as const };
    gateway = await Gateway.start(config, createLogger('warn'));
    const account = await gateway.services.accounts.create('database-blackhole-drill');
    const { key } = await gateway.services.apiKeys.create(account.id, [...PERMISSIONS]);
    const apiUrl = `http://127.0.0.1:${gateway.httpPort}/api/ext/v1`;
    console.log(`gateway on 127.0.0.1:${gateway.httpPort}, private PostgreSQL on 127.0.0.1:${postgres.port} through a link; ${CLIENTS} clients; ${load()}`);

    const calls: Call[] = [];
    const endAt = Date.now() + (WARMUP_S + AFTER_S) * 1000;
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; Date.now() < endAt; n++) calls.push(await call(apiUrl, key, (client + n) % 2 === 1, n));
    });
    await new Promise((resolve) => setTimeout(resolve, WARMUP_S * 1000));
    const faultAt = Date.now();
    const swallowed = link.blackhole();
    console.log(`fault: ${swallowed} open connections swallowed (nothing crosses them; new connections are forwarded); ${load()}`);
    await Promise.all(clients);

    const before = calls.filter((one) => one.endedAt < faultAt);
    const after = calls.filter((one) => one.endedAt >= faultAt);
    const failed = after.filter((one) => !/^2\d\d$/.test(one.status));
    const recoveryMs = failed.length === 0 ? 0 : Math.max(...failed.map((one) => one.endedAt)) - faultAt;
    const longestMs = Math.max(0, ...after.map((one) => one.endedAt - one.startedAt));
    const byStatus = new Map<string, number>();
    for (const one of failed) byStatus.set(one.status, (byStatus.get(one.status) ?? 0) + 1);
    const refused = [...byStatus].map(([status, count]) => `${count}x ${status}`).join(', ') || 'none';
    console.log(`before the fault: ${before.length} calls, ${before.filter((one) => !/^2\d\d$/.test(one.status)).length} refused`);
    console.log(`after the fault (${AFTER_S} s): ${after.length} calls, refused ${refused}; every call answered 2xx from ${seconds(recoveryMs)} s after the fault; longest call ${seconds(longestMs)} s; ${load()}`);

    if (before.length === 0) return 'no call answered before the fault';
    if (recoveryMs > RECOVERY_TARGET_MS) return `the API answered every call again only ${seconds(recoveryMs)} s after the fault (target ${seconds(RECOVERY_TARGET_MS)} s); refused ${refused}; ${load()}`;
    if (after.filter((one) => one.endedAt - faultAt > recoveryMs).length === 0) return 'no call answered after the recovery';
    if (longestMs >= LONGEST_TARGET_MS) return `a call waited ${seconds(longestMs)} s (target under ${seconds(LONGEST_TARGET_MS)} s); ${load()}`;
    console.log(`DRILL ${NAME}: PASS recovered ${seconds(recoveryMs)} s after the fault (${swallowed} connections swallowed; refused meanwhile ${refused}), longest call ${seconds(longestMs)} s, ${after.length} calls after the fault; ${load()}`);
    return undefined;
  } finally {
    link?.resetSwallowed();
    await gateway?.stop().catch(() => {});
    await link?.close();
    postgres.removeNow();
  }
}

async function call(apiUrl: string, key: string, post: boolean, n: number): Promise<Call> {
  const startedAt = Date.now();
  try {
    const response = await fetch(`${apiUrl}/${post ? 'sms' : 'devices'}`, {
      method: post ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${key}`, ...(post ? { 'content-type': 'application/json' } : {}) },
      ...(post ? { body: JSON.stringify({ phone: '+79161234567', message: `blackhole ${n}` }) } : {}),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    return { startedAt, endedAt: Date.now(), status: String(response.status) };
  } catch (error) {
    return { startedAt, endedAt: Date.now(), status: (error as Error).name === 'TimeoutError' ? 'timeout' : 'error' };
  }
}

// Ctrl-C and kill still remove the private cluster (its exit handler runs on process.exit).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`DRILL ${NAME}: FAIL interrupted by ${signal}`);
    process.exit(1);
  });
}

runDrill(NAME, (WARMUP_S + AFTER_S) * 1000 + 120_000, main);
