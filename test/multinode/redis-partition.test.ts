// Redis out of reach of every node for longer than PRESENCE_LEASE, then reachable again with all
// its data (a network partition, not a restart). No node died and no phone disconnected: once
// Redis is back, the nodes must not take each other for dead. No phone is announced offline (no
// device.offline webhook, no second device.online), no unacknowledged task goes to another
// phone, and every node shows every phone online.
import { expect } from 'chai';
import type { Received } from '../support/receiver.ts';
import { FAILOVER_AFTER_S, PRESENCE_LEASE_S, TEST_REDIS_URL, useDeployment } from './support/deployment.ts';
import { isOnline, phoneOn, registerPhone, silentPhoneOn } from './support/phones.ts';
import { RedisLink } from '../support/outage.ts';
import { sendSms, smsState } from './support/sms.ts';
import { ms, until } from './support/waits.ts';

/** Longer than the lease: every node's lease has run out when Redis is reachable again. */
const OUTAGE_MS = (PRESENCE_LEASE_S + 2) * 1000;
/** After Redis is back: time for a wrong reaping and the failover that would follow it. */
const WATCH_MS = (PRESENCE_LEASE_S + FAILOVER_AFTER_S + 2) * 1000;

describe('multi-node: Redis out of reach longer than PRESENCE_LEASE, then back with its data', function () {
  this.timeout(60_000);
  let proxy: RedisLink;
  before(async () => {
    proxy = await RedisLink.open(TEST_REDIS_URL);
  });
  // Declared before the deployment's hooks: the proxy is open before the nodes start.
  const deployment = useDeployment({ nodes: ['a', 'b'], redisUrl: () => proxy.url });
  after(() => proxy?.cut());

  it('when Redis comes back, then no phone that stayed connected is announced offline, no task moves, and every node shows every phone online', async () => {
    const [a, b] = [deployment.node('a'), deployment.node('b')];
    const tenant = await deployment.tenant();
    const receiver = await deployment.receiver();
    const hook = await tenant.on('a').post('/webhooks', { url: receiver.url, events: ['device.online', 'device.offline'] });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
    const ofType = (type: string) => (r: Received) => r.json?.type === type;

    // A phone on A holds an unacknowledged task of the pool; had it been taken for offline, the task would move.
    const silentDevice = await registerPhone(tenant.on('a'), 'silent-on-a');
    const silent = await silentPhoneOn(deployment, a, silentDevice);
    const held = await sendSms(tenant.on('b'), 'held through the partition');
    await until('the silent phone holding the task', async () => silent.tasks.includes(held), 5_000);
    const onA = await phoneOn(deployment, a, await registerPhone(tenant.on('a'), 'phone-on-a'));
    const onB = await phoneOn(deployment, b, await registerPhone(tenant.on('a'), 'phone-on-b'));
    await receiver.waitFor(3, ofType('device.online'), 5_000);
    const phoneIds = [silentDevice.id, onA.id, onB.id];

    // The partition.
    const linesBefore = [a.lines.length, b.lines.length];
    await proxy.cut();
    await Promise.all([a.nextMessage('Redis unavailable', 10_000, linesBefore[0]), b.nextMessage('Redis unavailable', 10_000, linesBefore[1])]);
    // The outage must outlast the lease: a duration of the scenario, not a wait for an event.
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    await proxy.restore();
    await Promise.all([a.nextMessage('Redis back', 20_000, linesBefore[0]), b.nextMessage('Redis back', 20_000, linesBefore[1])]);
    const backAt = performance.now();

    // Watched until a wrong reaping and its failover would have happened.
    const wrong = async (): Promise<string | undefined> => {
      const offline = receiver.received.filter(ofType('device.offline'));
      if (offline.length > 0) return `device.offline for ${offline.map((r) => r.json.data.device.id).join(', ')}`;
      if (onA.handled.has(held) || onB.handled.has(held)) return 'the silent phone\'s task went to another phone';
      return undefined;
    };
    while (performance.now() - backAt < WATCH_MS) {
      const problem = await wrong();
      expect(problem, `${ms(performance.now() - backAt)} after Redis was back`).to.equal(undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await smsState(tenant.on('a'), held)).deviceId, 'the held task, still the silent phone\'s').to.equal(silentDevice.id);
    for (const name of ['a', 'b']) {
      for (const id of phoneIds) expect(await isOnline(tenant.on(name), id), `${name} shows ${id} online`).to.equal(true);
    }
    expect(receiver.received.filter(ofType('device.online')), 'device.online events: one per phone, when it connected').to.have.length(3);
  });
});
