// The shared Redis is a Sentinel group (REDIS_SENTINELS), and its master dies under load. Real
// `serve` processes on a group of this test's own (a master, a replica, three sentinels with
// quorum 2); the master is killed, the sentinels promote the replica, and the nodes find it by
// themselves, without a restart. Meanwhile the nodes serve as through any Redis outage, and once
// on the new master they converge as after one: every SMS accepted is delivered once, by the phone
// it was meant for, phones stay on the node they are connected to, presence is shared again, an
// operator on one node sees a phone on the other, and wake-ups across nodes are as fast as before. The gap (master killed to "Redis back") is printed.
import { expect } from 'chai';
import { useDeployment } from './support/deployment.ts';
import { watch } from './support/operator.ts';
import { isOnline, phoneOn, registerPhone } from './support/phones.ts';
import { SentinelGroup } from './support/sentinel-group.ts';
import { allDelivered, compareWakeUps, expectDeliveredOnce, sendSms, smsState, statusSummary, timeToTask } from './support/sms.ts';
import { SmsLoad } from './support/sms-load.ts';
import { ms, until } from './support/waits.ts';

/** Between two SMS of the load: about 20 a second over both nodes. */
const LOAD_GAP_MS = 50;
/** Sentinel's own part: down after 1 s, then a vote and a promotion. */
const FAILOVER_BOUND_MS = 15_000;
/** After the promotion, a node asks the sentinels again within a second (its retries stop growing at 1 s). */
const BACK_BOUND_MS = 10_000;

describe('multi-node: the Redis Sentinel master dies under load', function () {
  this.timeout(110_000);
  let group: SentinelGroup | undefined;
  // Filled once the group is up, before the nodes start (the deployment reads it then).
  const sentinelEnv: Record<string, string> = {};
  before(async function () {
    this.timeout(40_000);
    group = await SentinelGroup.start();
    Object.assign(sentinelEnv, group.env);
  });
  // Declared after the group's hook: the group is up before the nodes start.
  const deployment = useDeployment({ nodes: ['a', 'b'], env: sentinelEnv });
  after(() => group?.stop());

  it('when the master is killed, then the nodes follow the promoted replica: nothing lost, nothing sent twice, no phone moved', async () => {
    const [a, b] = [deployment.node('a'), deployment.node('b')];
    for (const node of [a, b]) await node.nextMessage('Redis connected', 10_000);
    const tenant = await deployment.tenant();
    const onA = await phoneOn(deployment, a, await registerPhone(tenant.on('a'), 'phone-on-a'));
    const onB = await phoneOn(deployment, b, await registerPhone(tenant.on('a'), 'phone-on-b'));
    // Presence shared before the failover: each node shows the other's phone online.
    await until('each node showing both phones online', async () => (await isOnline(tenant.on('a'), onB.id)) && (await isOnline(tenant.on('b'), onA.id)), 10_000);
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
    load.start();
    await until('12 SMS accepted before the failover', async () => load.sent.length >= 12, 10_000);

    // The master dies; the sentinels promote the replica.
    const { switched } = await group!.nextSwitch(FAILOVER_BOUND_MS);
    const linesBefore = [a.lines.length, b.lines.length];
    const killedFrom = load.sent.length;
    const oldMaster = await group!.killMaster();
    const killedAt = performance.now();
    const newMaster = await switched;
    const promotedMs = performance.now() - killedAt;
    expect(newMaster, 'the promoted master').not.to.equal(oldMaster);
    const backMs: number[] = [];
    await Promise.all(
      [a, b].map(async (node, i) => {
        await node.nextMessage('Redis back', promotedMs + BACK_BOUND_MS, linesBefore[i]);
        backMs[i] = performance.now() - killedAt;
      }),
    );
    const duringFailover = load.sent.length - killedFrom;
    const backFrom = load.sent.length;
    await until('12 more SMS accepted on the new master', async () => load.sent.length >= backFrom + 12, 10_000);
    await load.stop();

    expect(load.refused, 'SMS refused at any time').to.deep.equal([]);
    const all = load.sent.map((sent) => sent.id!);
    const delivered = await until('every SMS delivered', () => allDelivered(tenant.on('b'), all), 20_000, () => statusSummary(tenant.on('b'), all));
    let sentTwice = 0;
    for (const sent of load.sent) {
      const phone = sent.route.phone!;
      if (phone.sendCount.get(sent.id!) !== 1) sentTwice++;
      expect(phone.sendCount.get(sent.id!), `${sent.route.name}: sent over the radio`).to.equal(1);
      const state = await smsState(tenant.on('a'), sent.id!);
      expectDeliveredOnce(state, sent.route.name);
      expect(state.deviceId, `${sent.route.name}: the phone that sent it`).to.equal(phone.id);
    }
    // Phones stay where they are: no connection closed by a node that wrongly thought it held the phone.
    expect({ a: onA.reconnects, b: onB.reconnects }, 'phone reconnects').to.deep.equal({ a: 0, b: 0 });
    await until('each node showing both phones online again', async () => (await isOnline(tenant.on('a'), onB.id)) && (await isOnline(tenant.on('b'), onA.id)), 10_000);

    // The broker's bus follows too: an operator on A is sent the retained presence of the phone on
    // B and its live status reports.
    const { seen } = await watch(deployment, a, tenant.key, onB.id, ['presence', 'status']);
    await until('the retained presence of the phone on B, on A', async () => seen.some((m) => m.kind === 'presence' && m.retain && m.payload === 'online'), 5_000);
    const watched = await sendSms(tenant.on('b'), 'watched from A after the failover', onB.id);
    const statuses = () => seen.filter((m) => m.kind === 'status' && JSON.parse(m.payload).sms_id === watched).map((m) => JSON.parse(m.payload).status as string);
    await until('the status reports of the phone on B, live on A', async () => statuses().includes('delivered'), 5_000, () => statuses().join(', '));
    expect(statuses()).to.deep.equal(['processing', 'sent', 'delivered']);

    // Wake-ups cross nodes through the new master: about as fast as within a node.
    const times = await compareWakeUps(
      5,
      async (i) => (await timeToTask(tenant.on('a'), onA, `after the failover, within A #${i}`)).ms,
      async (i) => (await timeToTask(tenant.on('b'), onA, `after the failover, from B #${i}`)).ms,
    );
    console.log(
      `      ${load.sent.length} SMS (${duringFailover} accepted between the kill and both nodes back), 0 lost, ${sentTwice} sent twice; ` +
        `replica promoted ${ms(promotedMs)} after the kill; gap (kill to "Redis back"): A ${ms(backMs[0]!)}, B ${ms(backMs[1]!)}; ` +
        `all delivered ${ms(delivered.ms)} after the load stopped; task on A, median: made on A ${ms(times.local)}, made on B ${ms(times.remote)}`,
    );
    expect(times.remote - times.local, 'median cost of crossing nodes after the failover').to.be.below(250);
    for (const node of [a, b]) {
      expect(node.count('Redis unavailable'), `"Redis unavailable" lines of ${node.nodeId}`).to.equal(1);
      expect(node.count('Redis back'), `"Redis back" lines of ${node.nodeId}`).to.equal(1);
    }
  });
});
