// Drill: the master of a Redis Sentinel group dies twice under load, and two gateway nodes follow.
//
// Two gateways in this process share one PostgreSQL database (of the drill's own) and a Redis
// Sentinel group of the drill's own: a master, one replica and three sentinels (quorum 2, down
// after 1 s), each a `redis-server` on a free port of 127.0.0.1 (the machine's Redis is never
// touched). Simulated phones are connected to both nodes, and SMS are posted at a steady rate
// through both nodes' APIs, for whichever phone of the account (so that many cross nodes). The
// master is killed (SIGKILL); the sentinels promote the replica; the old master is started again
// and becomes a replica of the new one; then the new master is killed as well, and the group fails
// back. Each time the drill prints how long the promotion took and, per node, the gap from the
// kill until it said "Redis back". It passes when every accepted SMS is final (delivered) within
// the drain bound, none was sent twice or taken by two phones, no phone reconnected (none was closed by a node that wrongly thought it held it), and each node shows
// every phone online at the end. Posts refused are counted and shown, not failed: the SMS path
// does not touch Redis, and on a loaded machine a post may time out whatever Redis does.
//
//   npx tsx scripts/drills/redis-sentinel-failover.ts
//   SENTINEL_FAILOVER_WARMUP_SECONDS=3 SENTINEL_FAILOVER_ROUNDS=1 npx tsx scripts/drills/redis-sentinel-failover.ts   (quick)
//
// Settings (environment): SENTINEL_FAILOVER_RATE (SMS a second over both nodes, 40),
// SENTINEL_FAILOVER_PHONES (per node, 10), SENTINEL_FAILOVER_WARMUP_SECONDS (before the first kill,
// between the kills and after the last, 10), SENTINEL_FAILOVER_ROUNDS (masters killed, 2),
// SENTINEL_FAILOVER_DRAIN_SECONDS (the bound after the load stops, 60), SENTINEL_FAILOVER_DEBUG
// (set: the nodes' warnings and Redis lines on stdout).
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import { Fleet } from '../../src/simulator/fleet.ts';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import { updateDeviceSettings } from '../../src/use-cases/update-device-settings.ts';
import { SentinelGroup } from '../../test/multinode/support/sentinel-group.ts';
import { freshDatabase } from './support/fresh-database.ts';
import { readNumber, runDrill, sleep, startSmsLoad, type SmsLoad } from './support/drill-kit.ts';

const NAME = 'redis-sentinel-failover';
const RATE = readNumber(NAME, 'SENTINEL_FAILOVER_RATE', 40, 2, 1000);
const PHONES = readNumber(NAME, 'SENTINEL_FAILOVER_PHONES', 10, 1, 200);
const WARMUP_S = readNumber(NAME, 'SENTINEL_FAILOVER_WARMUP_SECONDS', 10, 1, 300);
const ROUNDS = readNumber(NAME, 'SENTINEL_FAILOVER_ROUNDS', 2, 1, 10);
const DRAIN_S = readNumber(NAME, 'SENTINEL_FAILOVER_DRAIN_SECONDS', 60, 1, 600);
/** Sentinel's promotion, and a node's return after it: each bounded, or the drill fails. */
const PROMOTION_BOUND_MS = 20_000;
const BACK_BOUND_MS = 15_000;
const POST_TIMEOUT_MS = 10_000;
const FINAL = new Set(['delivered', 'undelivered', 'failed_send', 'failed_delivery']);
const UNPACED = { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } };

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** When a node said what about Redis, and how many warning lines it wrote. */
class RedisNews extends Writable {
  readonly said: { at: number; msg: string }[] = [];
  warnings = 0;
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const text of chunk.toString().split('\n')) {
      if (!text.trim()) continue;
      try {
        const line = JSON.parse(text) as { level: number; msg: string };
        if (line.msg?.startsWith('Redis')) this.said.push({ at: performance.now(), msg: line.msg });
        if (line.level >= 40) this.warnings++;
        if (process.env.SENTINEL_FAILOVER_DEBUG && (line.level >= 40 || line.msg?.startsWith('Redis'))) console.log('LOG', text.slice(0, 400));
      } catch {
        // not a log line
      }
    }
    done();
  }
  /** Resolves with the time of the first `msg` said after `from`. */
  async next(msg: string, from: number, timeoutMs: number): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const line = this.said.find((said) => said.at >= from && said.msg === msg);
      if (line) return line.at;
      if (performance.now() > deadline) throw new Error(`no "${msg}" within ${timeoutMs} ms`);
      await sleep(20);
    }
  }
}

interface Node {
  name: string;
  gateway: Gateway;
  news: RedisNews;
  fleet?: Fleet;
}

runDrill(NAME, 20 * 60_000, async () => {
  const database = await freshDatabase('sentinel');
  let group: SentinelGroup | undefined;
  const nodes: Node[] = [];
  const loads: SmsLoad[] = [];
  try {
    group = await SentinelGroup.start();
    const shared: Partial<Config> = {
      port: 0,
      host: '127.0.0.1',
      mqttPort: 0,
      databaseUrl: database.url,
      dataDir: ':memory:',
      redisUrl: undefined,
      redisSentinel: loadConfig({ ...group.env, DATABASE_URL: database.url, WEBHOOK_SECRET_KEY: 'ab'.repeat(32) }).redisSentinel,
      redisPrefix: `sgw-drill-${randomBytes(4).toString('hex')}`,
      webhooks: { ...loadConfig({}).webhooks, secretKey: randomBytes(32) },
      // Two gateways, forty phones and the load share this process: admission control would judge
      // that as overload and answer 503 at random. It has drills of its own.
      admission: { maxInFlight: 100_000, targetLatencyMs: 0, maxEventLoopDelayMs: 0 },
    };
    for (const name of ['a', 'b']) {
      const news = new RedisNews();
      const config: Config = { ...loadConfig({}), ...shared, nodeId: `drill-${name}`, logLevel: 'info' };
      // One at a time: the first migrates the new database.
      nodes.push({ name, news, gateway: await Gateway.start(config, createLogger('info', news)) });
    }
    const [a, b] = nodes as [Node, Node];
    const account = await a.gateway.services.accounts.create('sentinel-failover-drill');
    const { key } = await a.gateway.services.apiKeys.create(account.id, [...PERMISSIONS]);
    for (const node of nodes) {
      node.fleet = new Fleet({
        count: PHONES,
        apiUrl: `http://127.0.0.1:${node.gateway.httpPort}`,
        apiKey: key,
        brokerUrl: `mqtt://127.0.0.1:${node.gateway.mqttPort}`,
        device: { delays: { processing: 20, sent: 50, delivered: 50 } },
      });
      await node.fleet.start();
      // No pacing: the load is more than the default limits let a phone send.
      for (const device of node.fleet.devices) await updateDeviceSettings(a.gateway.services, a.gateway.services.db, account.id, device.id, UNPACED);
    }
    const phones = nodes.flatMap((node) => node.fleet!.devices.map((device) => ({ node, device })));
    console.log(`two gateways (A on ${a.gateway.httpPort}, B on ${b.gateway.httpPort}), ${PHONES} simulated phones on each; Sentinel group ${group.sentinelList}, master ${group.name}`);
    console.log(`load ${RATE} SMS/s over both nodes' APIs: ${WARMUP_S} s, then ${ROUNDS} master(s) killed ${WARMUP_S} s apart, then ${WARMUP_S} s more`);

    for (const node of nodes) loads.push(startSmsLoad({ apiUrl: `http://127.0.0.1:${node.gateway.httpPort}/api/ext/v1`, key, rate: RATE / 2, timeoutMs: POST_TIMEOUT_MS }));
    const accepted = () => loads.reduce((sum, load) => sum + load.accepted.length, 0);
    await sleep(WARMUP_S * 1000);

    const rounds: string[] = [];
    const problems: string[] = [];
    let killed: number | undefined;
    for (let round = 1; round <= ROUNDS; round++) {
      if (killed !== undefined) {
        // The master killed last time comes back and becomes a replica: the group can fail over again.
        await group.restart(killed);
        console.log(`old master 127.0.0.1:${killed} back, in sync as a replica`);
      }
      const { switched } = await group.nextSwitch(PROMOTION_BOUND_MS);
      const acceptedBefore = accepted();
      killed = await group.killMaster();
      const killedAt = performance.now();
      console.log(`round ${round}: master 127.0.0.1:${killed} killed (${acceptedBefore} SMS accepted so far)`);
      const promoted = await switched;
      const promotedMs = performance.now() - killedAt;
      const gaps = await Promise.all(
        nodes.map(async (node) => {
          try {
            return `${node.name} ${seconds((await node.news.next('Redis back', killedAt, promotedMs + BACK_BOUND_MS)) - killedAt)} s`;
          } catch {
            problems.push(`round ${round}: node ${node.name} not back on the new master within ${seconds(promotedMs + BACK_BOUND_MS)} s`);
            return `${node.name} -`;
          }
        }),
      );
      const line = `round ${round}: 127.0.0.1:${promoted} promoted ${seconds(promotedMs)} s after the kill; gap (kill to "Redis back"): ${gaps.join(', ')}`;
      console.log(line);
      rounds.push(line.replace(/^round \d+: /, ''));
      await sleep(WARMUP_S * 1000);
    }
    await Promise.all(loads.map((load) => load.stop()));
    const stoppedAt = Date.now();

    // Every accepted SMS final within the bound.
    const ids = loads.flatMap((load) => load.accepted);
    const db = a.gateway.services.db;
    let open = ids.length;
    let drainedAt: number | undefined;
    while (Date.now() < stoppedAt + DRAIN_S * 1000) {
      const rows = (await db('sms').whereIn('id', ids).whereNotIn('status', [...FINAL]).count({ n: '*' })) as { n: number }[];
      open = Number(rows[0]!.n);
      if (open === 0) {
        drainedAt = Date.now();
        break;
      }
      await sleep(250);
    }
    const byStatus = (await db('sms').whereIn('id', ids).select('status').count({ n: '*' }).groupBy('status')) as { status: string; n: number }[];
    const notDelivered = byStatus.filter((row) => row.status !== 'delivered').reduce((sum, row) => sum + Number(row.n), 0);

    // Sent twice: by one phone (its own count) or by two (the same id taken by two phones).
    const sentBy = new Map<string, number>();
    const takenBy = new Map<string, number>();
    for (const { device } of phones) {
      for (const [id, count] of device.sendCount) sentBy.set(id, (sentBy.get(id) ?? 0) + count);
      for (const id of device.handled.keys()) takenBy.set(id, (takenBy.get(id) ?? 0) + 1);
    }
    const sentTwice = [...sentBy.values()].filter((count) => count > 1).length;
    const takenByTwo = [...takenBy.values()].filter((count) => count > 1).length;
    const acceptedBy = nodes.map((_, i) => new Set(loads[i]!.accepted));
    const crossed = phones.reduce((sum, { node, device }) => sum + [...device.handled.keys()].filter((id) => !acceptedBy[nodes.indexOf(node)]!.has(id)).length, 0);
    const reconnects = phones.reduce((sum, { device }) => sum + device.reconnects, 0);
    const refusedTotal = loads.reduce((sum, load) => sum + load.refusedTotal(), 0);
    const refused = loads.flatMap((load) => [...load.refused].map(([reason, n]) => `${reason}: ${n}`)).join(', ') || 'none';
    // Each node shows every phone online: presence shared again on the last master.
    let shownOffline = 0;
    for (const node of nodes) {
      for (const { device } of phones) {
        const reply = await fetch(`http://127.0.0.1:${node.gateway.httpPort}/api/ext/v1/devices/${device.id}`, { headers: { authorization: `Bearer ${key}` } });
        const body = (await reply.json()) as { is_online?: boolean };
        if (body.is_online !== true) shownOffline++;
      }
    }

    console.log(`accepted ${accepted()}, refused ${refusedTotal} (${refused}); ${crossed} SMS taken by a phone on the other node than the one that accepted it`);
    console.log(`final statuses: ${byStatus.map((row) => `${row.status} ${row.n}`).join(', ')}`);
    console.log(drainedAt ? `every accepted SMS final ${seconds(drainedAt - stoppedAt)} s after the load stopped (bound ${DRAIN_S} s)` : `${open} accepted SMS still not final ${DRAIN_S} s after the load stopped`);
    console.log(`sent twice ${sentTwice}; taken by two phones ${takenByTwo}; phone reconnects ${reconnects}; phones shown offline by a node at the end ${shownOffline}`);
    console.log(`warning lines: A ${a.news.warnings}, B ${b.news.warnings}; "Redis unavailable": A ${a.news.said.filter((s) => s.msg.startsWith('Redis unavailable')).length}, B ${b.news.said.filter((s) => s.msg.startsWith('Redis unavailable')).length}`);

    if (!drainedAt) problems.push(`${open} accepted SMS not final within ${DRAIN_S} s`);
    if (notDelivered > 0) problems.push(`${notDelivered} SMS final but not delivered`);
    if (sentTwice > 0) problems.push(`${sentTwice} SMS sent twice`);
    if (takenByTwo > 0) problems.push(`${takenByTwo} SMS taken by two phones`);
    if (reconnects > 0) problems.push(`${reconnects} phone reconnects`);
    if (shownOffline > 0) problems.push(`${shownOffline} phones shown offline by a node at the end`);
    if (ids.length === 0) problems.push('no SMS accepted at all');
    if (problems.length > 0) return problems.join('; ');
    console.log(`DRILL ${NAME}: PASS ${ids.length} accepted (${refusedTotal} refused), 0 lost, 0 sent twice, 0 reconnects; ${rounds.join('; ')}`);
    return undefined;
  } finally {
    await Promise.all(loads.map((load) => load.stop().catch(() => undefined)));
    for (const node of nodes) await node.fleet?.stop().catch(() => undefined);
    for (const node of nodes) await node.gateway.stop().catch(() => undefined);
    group?.stop();
    await database.drop().catch(() => undefined);
  }
});
