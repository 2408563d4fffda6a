// Redis stops under load and comes back empty (no persistence), and no node is restarted. Real
// `serve` processes on a Redis server of this test's own (the machine's shared Redis is never
// stopped). While Redis is down every node goes on accepting SMS and serving its phones, across
// nodes through the sweep; says so once; /readyz stays 200 with checks.redis "failing"; and a
// node started meanwhile starts and serves too. Once Redis is back, the nodes converge by
// themselves: every SMS delivered once, presence shared again (every node shows every phone
// online), cross-node wake-ups fast again, "Redis back" said once.
import { expect } from 'chai';
import { useDeployment } from './support/deployment.ts';
import type { GatewayNode } from './support/node-process.ts';
import { OwnRedis } from './support/own-redis.ts';
import { awaitRetainedPresence } from './support/operator.ts';
import { isOnline, phoneOn, registerPhone } from './support/phones.ts';
import { allDelivered, compareWakeUps, expectDeliveredOnce, smsState, statusSummary, timeToTask } from './support/sms.ts';
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

  it('when Redis is killed and restarted empty, then every node keeps accepting and delivering, a node starts meanwhile, and all converge once it is back, without a restart', async () => {
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

    // A phone connecting during the outage is served; so is a node started during it, with its phones.
    const lateOnA = await phoneOn(deployment, a, await registerPhone(tenant.on('a'), 'late-on-a'));
    const lateTask = await timeToTask(tenant.on('a'), lateOnA, 'for the phone that connected during the outage');
    await until('the SMS for the late phone delivered', async () => (await smsState(tenant.on('a'), lateTask.id)).status === 'delivered', 5_000);
    const c = await deployment.startNode('c');
    expect(await readiness(c), '/readyz of the node started during the outage').to.deep.equal({ status: 200, redis: 'failing' });
    const onC = await phoneOn(deployment, c, await registerPhone(tenant.on('c'), 'phone-on-c'));
    const madeOnC = await timeToTask(tenant.on('c'), onC, 'made on C during the outage');
    await until('the SMS made on C delivered', async () => (await smsState(tenant.on('c'), madeOnC.id)).status === 'delivered', 5_000);
    await until('16 SMS accepted during the outage', async () => load.sent.length >= outageFrom + 16, 15_000);
    const duringOutage = idsOf(outageFrom);
    const servedInOutage = await until('every SMS made during the outage delivered, Redis still down', () => allDelivered(tenant.on('a'), duringOutage), 10_000, () =>
      statusSummary(tenant.on('a'), duringOutage),
    );
    expect(load.refused, 'SMS refused during the outage').to.deep.equal([]);

    // Redis comes back, empty.
    const backFrom = load.sent.length;
    await redis.restart();
    const restartedAt = performance.now();
    await Promise.all([a.nextMessage('Redis back', 20_000, linesBefore[0]), b.nextMessage('Redis back', 20_000, linesBefore[1]), c.nextMessage('Redis back', 20_000)]);
    const backMs = performance.now() - restartedAt;
    await until('8 more SMS accepted after Redis is back', async () => load.sent.length >= backFrom + 8, 10_000);
    await load.stop();

    expect(load.refused, 'SMS refused at any time').to.deep.equal([]);
    const all = idsOf(0);
    const converged = await until('every SMS delivered', () => allDelivered(tenant.on('b'), all), 15_000, () => statusSummary(tenant.on('b'), all));
    for (const sent of load.sent) {
      expect(sent.route.phone!.sendCount.get(sent.id!), `${sent.route.name}: sent over the radio`).to.equal(1);
      expectDeliveredOnce(await smsState(tenant.on('b'), sent.id!), sent.route.name);
    }
    for (const node of [a, b, c]) expect(await readiness(node), `/readyz of ${node.nodeId} after the outage`).to.deep.equal({ status: 200, redis: 'ok' });

    // Shared state rebuilt in the empty Redis: every node shows every phone online.
    const phones = [onA, onB, lateOnA, onC];
    const shownOffline = async () => {
      const missing: string[] = [];
      for (const name of ['a', 'b', 'c']) {
        for (const phone of phones) if (!(await isOnline(tenant.on(name), phone.id))) missing.push(`${name} shows ${phone.options.name ?? phone.id} offline`);
      }
      return missing;
    };
    const presence = await until('every node showing every phone online', async () => (await shownOffline()).length === 0, 10_000, async () => (await shownOffline()).join(', '));
    // The retained messages were lost with Redis' memory: an operator connecting now still learns where each phone stands.
    for (const phone of phones) {
      await awaitRetainedPresence(deployment, b, tenant.key, phone.id, 'online', 5_000, `of ${phone.options.name}, read on B`);
    }
    // Cross-node wake-ups work again, from the node started in the outage too: about as fast as within a node.
    const times = await compareWakeUps(
      6,
      async (i) => (await timeToTask(tenant.on('a'), onA, `after the outage, within A #${i}`)).ms,
      async (i) => (await timeToTask(tenant.on(i % 2 === 0 ? 'b' : 'c'), onA, `after the outage, from B or C #${i}`)).ms,
    );
    console.log(
      `      ${load.sent.length} SMS (${duringOutage.length} during the outage, all delivered ${ms(servedInOutage.ms)} after the last was counted, Redis still down); ` +
        `outage noticed after ${ms(noticedMs)}, Redis back noticed ${ms(backMs)} after its restart, all delivered ${ms(converged.ms)} after the load stopped; ` +
        `presence shared again after ${ms(presence.ms)}; task on A, median: made on A ${ms(times.local)}, made on B or C ${ms(times.remote)}`,
    );
    expect(times.remote - times.local, 'median cost of crossing nodes after the outage').to.be.below(250);
    for (const node of [a, b, c]) {
      expect(node.count('Redis unavailable'), `"Redis unavailable" lines of ${node.nodeId}`).to.equal(1);
      expect(node.count('Redis back'), `"Redis back" lines of ${node.nodeId}`).to.equal(1);
    }
  });
});
