// Redis stops under load and comes back empty (no persistence), and no node is restarted. Two
// real `serve` processes on a Redis server of this test's own (the machine's shared Redis is
// never stopped). While Redis is down every node goes on accepting SMS and serving its phones,
// across nodes through the sweep; says so once, and /readyz stays 200 with checks.redis
// "failing". Once Redis is back, the nodes converge by themselves: every SMS delivered once,
// presence shared again (each node shows the other's phone online), cross-node wake-ups fast
// again, "Redis back" said once.
import { expect } from 'chai';
import { useDeployment } from './support/deployment.ts';
import type { GatewayNode } from './support/node-process.ts';
import { OwnRedis } from './support/own-redis.ts';
import { isOnline, phoneOn, registerPhone } from './support/phones.ts';
import { compareWakeUps, expectDeliveredOnce, smsState, timeToTask } from './support/sms.ts';
import { SmsLoad } from './support/sms-load.ts';
import { ms, until } from './support/waits.ts';

/** Between two SMS of the load: about 12 a second over both nodes. */
const LOAD_GAP_MS = 80;

async function readiness(node: GatewayNode): Promise<{ status: number; redis: string }> {
  const response = await fetch(`${node.baseUrl}/readyz`);
  const body = (await response.json()) as { checks: Record<string, string> };
  return { status: response.status, redis: body.checks.redis! };
}

describe('multi-node: Redis restarted under load', function () {
  this.timeout(90_000);
  let redis: OwnRedis;
  before(async () => {
    redis = await OwnRedis.start();
  });
  // Declared before the deployment's hooks: Redis is up before the nodes start.
  const deployment = useDeployment({ nodes: ['a', 'b'], redisUrl: () => redis.url });
  after(() => redis?.kill());

  it('when Redis is killed and restarted empty, then both nodes keep accepting and delivering, and converge once it is back, without a restart', async () => {
    const [a, b] = [deployment.node('a'), deployment.node('b')];
    const tenant = await deployment.tenant();
    const onA = await phoneOn(deployment, a, await registerPhone(tenant.on('a'), 'phone-on-a'));
    const onB = await phoneOn(deployment, b, await registerPhone(tenant.on('a'), 'phone-on-b'));
    const load = new SmsLoad(
      [
        { name: 'A to the phone on B', via: tenant.on('a'), phone: onB },
        { name: 'B to the phone on A', via: tenant.on('b'), phone: onA },
        { name: 'A to the phone on A', via: tenant.on('a'), phone: onA },
        { name: 'B to the phone on B', via: tenant.on('b'), phone: onB },
      ],
      LOAD_GAP_MS,
    );
    deployment.afterTest(() => load.stop());
    const delivered = async (ids: string[]) =>
      (await Promise.all(ids.map(async (id) => (await smsState(tenant.on('a'), id)).status === 'delivered'))).every(Boolean);
    const idsOf = (from: number, to = load.sent.length) => load.sent.slice(from, to).flatMap((sent) => (sent.id ? [sent.id] : []));

    load.start();
    await until('8 SMS accepted before the outage', async () => load.sent.length >= 8, 10_000);

    // Redis dies.
    const outageFrom = load.sent.length;
    const linesBefore = [a.lines.length, b.lines.length];
    await redis.kill();
    const killedAt = performance.now();
    await Promise.all([a.nextMessage('Redis unavailable', 10_000, linesBefore[0]), b.nextMessage('Redis unavailable', 10_000, linesBefore[1])]);
    const noticedMs = performance.now() - killedAt;
    for (const node of [a, b]) expect(await readiness(node), `/readyz of ${node.nodeId} during the outage`).to.deep.equal({ status: 200, redis: 'failing' });
    await until('16 SMS accepted during the outage', async () => load.sent.length >= outageFrom + 16, 15_000);
    const duringOutage = idsOf(outageFrom);
    const servedInOutage = await until('every SMS made during the outage delivered, Redis still down', () => delivered(duringOutage), 10_000);
    expect(load.refused, 'SMS refused during the outage').to.deep.equal([]);

    // Redis comes back, empty.
    const backFrom = load.sent.length;
    await redis.restart();
    const restartedAt = performance.now();
    await Promise.all([a.nextMessage('Redis back', 20_000, linesBefore[0]), b.nextMessage('Redis back', 20_000, linesBefore[1])]);
    const backMs = performance.now() - restartedAt;
    await until('8 more SMS accepted after Redis is back', async () => load.sent.length >= backFrom + 8, 10_000);
    await load.stop();

    expect(load.refused, 'SMS refused at any time').to.deep.equal([]);
    const all = idsOf(0);
    const converged = await until('every SMS delivered', () => delivered(all), 15_000);
    for (const sent of load.sent) {
      expect(sent.route.phone.sendCount.get(sent.id!), `${sent.route.name}: sent over the radio`).to.equal(1);
      expectDeliveredOnce(await smsState(tenant.on('b'), sent.id!), sent.route.name);
    }
    for (const node of [a, b]) expect(await readiness(node), `/readyz of ${node.nodeId} after the outage`).to.deep.equal({ status: 200, redis: 'ok' });

    // Shared state rebuilt in the empty Redis: each node shows the other's phone online.
    const presence = await until(
      'each node showing the other node\'s phone online',
      async () => (await isOnline(tenant.on('b'), onA.id)) && (await isOnline(tenant.on('a'), onB.id)),
      10_000,
      async () => `B shows the phone on A ${(await isOnline(tenant.on('b'), onA.id)) ? 'online' : 'offline'}, A shows the phone on B ${(await isOnline(tenant.on('a'), onB.id)) ? 'online' : 'offline'}`,
    );
    // Cross-node wake-ups work again: about as fast as within a node, faster than the 1 s sweep.
    const times = await compareWakeUps(
      6,
      async (i) => (await timeToTask(tenant.on('a'), onA, `after the outage, within A #${i}`)).ms,
      async (i) => (await timeToTask(tenant.on('b'), onA, `after the outage, from B #${i}`)).ms,
    );
    console.log(
      `      ${load.sent.length} SMS (${duringOutage.length} during the outage, all delivered ${ms(servedInOutage.ms)} after the last was counted, Redis still down); ` +
        `outage noticed after ${ms(noticedMs)}, Redis back noticed ${ms(backMs)} after its restart, all delivered ${ms(converged.ms)} after the load stopped; ` +
        `presence shared again after ${ms(presence.ms)}; task on A, median: made on A ${ms(times.local)}, made on B ${ms(times.remote)}`,
    );
    expect(times.remote - times.local, 'median cost of crossing nodes after the outage').to.be.below(250);
    for (const node of [a, b]) {
      expect(node.count('Redis unavailable'), `"Redis unavailable" lines of ${node.nodeId}`).to.equal(1);
      expect(node.count('Redis back'), `"Redis back" lines of ${node.nodeId}`).to.equal(1);
    }
  });
});
