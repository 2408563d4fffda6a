// One node loses Redis for longer than PRESENCE_LEASE while Redis itself and the other nodes are
// fine (a partition). The others cannot tell it from a dead node: they announce its phones offline
// and, FAILOVER_AFTER later, give their unacknowledged tasks to phones they reach. The cut-off node
// still serves its phones meanwhile, so a phone there may acknowledge such a task late: that
// acknowledgement must be refused (the task revoked), so that every SMS is sent exactly once. Once
// Redis is back, the node rejoins and its phone is online again everywhere.
import { expect } from 'chai';
import { FAILOVER_AFTER_S, PRESENCE_LEASE_S, TEST_REDIS_URL, useDeployment } from './support/deployment.ts';
import { isOnline, phoneOn, registerPhone, silentPhoneOn } from './support/phones.ts';
import { RedisLink } from '../support/outage.ts';
import { allDelivered, expectDeliveredOnce, sendSms, smsState, statusSummary } from './support/sms.ts';
import { ms, until } from './support/waits.ts';

const SMS_COUNT = 3;

describe('multi-node: one node cut off from Redis longer than PRESENCE_LEASE', function () {
  this.timeout(60_000);
  let proxy: RedisLink;
  before(async () => {
    proxy = await RedisLink.open(TEST_REDIS_URL);
  });
  // Node B reaches Redis directly; node A, started in the test, through the proxy.
  const deployment = useDeployment({ nodes: ['b'] });
  after(() => proxy?.cut());

  it('when the tasks of a phone on the cut-off node go to a phone on B, then its late acknowledgements are revoked, every SMS is sent once, and it is online again once Redis is back', async () => {
    const a = await deployment.startNode('a', { REDIS_URL: proxy.url });
    const b = deployment.node('b');
    const tenant = await deployment.tenant();
    const slowDevice = await registerPhone(tenant.on('b'), 'slow-on-a');
    const slow = await silentPhoneOn(deployment, a, slowDevice);
    const ids: string[] = [];
    for (let i = 0; i < SMS_COUNT; i++) ids.push(await sendSms(tenant.on('b'), `across the partition #${i}`));
    await until('the phone on A holding every SMS', async () => ids.every((id) => slow.tasks.includes(id)), 5_000);
    const quick = await phoneOn(deployment, b, await registerPhone(tenant.on('b'), 'quick-on-b'));

    const linesBefore = a.lines.length;
    await proxy.cut();
    const cutAt = performance.now();
    await a.nextMessage('Redis unavailable', 10_000, linesBefore);
    await until(
      'every SMS delivered by the phone on B',
      () => allDelivered(tenant.on('b'), ids),
      (PRESENCE_LEASE_S + FAILOVER_AFTER_S + 10) * 1000,
      () => statusSummary(tenant.on('b'), ids),
    );
    const deliveredMs = performance.now() - cutAt;

    // The phone on A, still served by its node, acknowledges them now.
    for (const id of ids) await slow.report(id, 'processing');
    await until('A revoking every late acknowledgement', async () => ids.every((id) => slow.revoked.has(id)), 5_000, () => `${slow.revoked.size} revoked`);
    for (const id of ids) {
      expect(slow.revoked.get(id), 'revoke reason').to.equal('reassigned');
      expect(quick.sendCount.get(id), 'sent by the phone on B').to.equal(1);
      const state = await smsState(tenant.on('b'), id);
      expectDeliveredOnce(state, `SMS ${ids.indexOf(id)}`);
      expect(state.deviceId, 'the SMS is the phone on B\'s').to.equal(quick.id);
    }

    await proxy.restore();
    await a.nextMessage('Redis back', 20_000, linesBefore);
    const rejoined = await until('B showing the phone on A online again', () => isOnline(tenant.on('b'), slowDevice.id), 10_000);
    console.log(`      A cut off: its phone's ${SMS_COUNT} tasks delivered through B ${ms(deliveredMs)} after the cut; the phone on A online on B again ${ms(rejoined.ms)} after Redis was back`);
  });
});
