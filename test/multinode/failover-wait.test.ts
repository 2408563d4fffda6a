// FAILOVER_AFTER holds across nodes: when a node dies, the unacknowledged tasks of its phones go
// to other phones FAILOVER_AFTER after those phones were found offline, never before (a phone
// whose node died may well reconnect elsewhere within that time, and find its tasks waiting).
// Many silent phones on the killed node make the surviving nodes' work after the lease runs out
// take a while, so that their sweeps run in the middle of it.
import { expect } from 'chai';
import type { Received } from '../support/receiver.ts';
import { FAILOVER_AFTER_S, MOVE_SLACK_MS, PRESENCE_LEASE_S, useDeployment } from './support/deployment.ts';
import { phoneOn, registerPhone, silentPhoneOn, type SilentPhone } from './support/phones.ts';
import { allDelivered, sendSms, statusSummary } from './support/sms.ts';
import { ms, until } from './support/waits.ts';

const SILENT_PHONES = 12;
const TASKS_EACH = 2;

describe('multi-node: failover waits FAILOVER_AFTER after a node died', function () {
  this.timeout(60_000);
  const deployment = useDeployment({ nodes: ['a', 'b', 'c'] });

  it('when the node holding many silent phones is killed, then none of their tasks moves before FAILOVER_AFTER after its phone was announced offline', async () => {
    const tenant = await deployment.tenant();
    const receiver = await deployment.receiver();
    const hook = await tenant.on('b').post('/webhooks', { url: receiver.url, events: ['device.offline'] });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);

    const window = { send_window: TASKS_EACH, limits: { per_minute: null, per_hour: null, per_day: null } };
    const silent = new Map<string, SilentPhone>();
    for (let i = 0; i < SILENT_PHONES; i++) {
      const device = await registerPhone(tenant.on('b'), `silent-${i}`, window);
      silent.set(device.id, await silentPhoneOn(deployment, deployment.node('a'), device));
    }
    const ids: string[] = [];
    for (let i = 0; i < SILENT_PHONES * TASKS_EACH; i++) ids.push(await sendSms(tenant.on(i % 2 === 0 ? 'b' : 'c'), `held by a silent phone #${i}`));
    const heldBy = new Map<string, string>();
    await until(
      'every SMS held by a silent phone on A',
      async () => {
        for (const [deviceId, phone] of silent) for (const id of phone.tasks) heldBy.set(id, deviceId);
        return heldBy.size === ids.length;
      },
      10_000,
      () => `${heldBy.size} of ${ids.length} held`,
    );
    const survivor = await phoneOn(deployment, deployment.node('c'), await registerPhone(tenant.on('c'), 'survivor'));
    const movedAt = new Map<string, number>();
    survivor.on('task', (task) => {
      if (!movedAt.has(task.sms_id)) movedAt.set(task.sms_id, Date.now());
    });

    await deployment.node('a').kill();
    const killedAt = Date.now();
    const offline = (r: Received) => r.json?.type === 'device.offline' && silent.has(r.json?.data?.device?.id);
    await receiver.waitFor(SILENT_PHONES, offline, (PRESENCE_LEASE_S + 5) * 1000);
    const announcedAt = new Map(receiver.received.filter(offline).map((r) => [r.json.data.device.id as string, Date.parse(r.json.timestamp)]));
    await until('every SMS delivered by the survivor', () => allDelivered(tenant.on('c'), ids), FAILOVER_AFTER_S * 1000 + 15_000, () => statusSummary(tenant.on('c'), ids));

    const early: string[] = [];
    const late: string[] = [];
    const waited: number[] = [];
    for (const id of ids) {
      const wait = movedAt.get(id)! - announcedAt.get(heldBy.get(id)!)!;
      waited.push(wait);
      if (wait < FAILOVER_AFTER_S * 1000 - 100) early.push(`${ms(wait)} after its phone's offline`);
      if (wait > FAILOVER_AFTER_S * 1000 + MOVE_SLACK_MS) late.push(`${ms(wait)} after its phone's offline`);
    }
    console.log(
      `      ${SILENT_PHONES} silent phones announced offline ${ms(Math.min(...announcedAt.values()) - killedAt)}-${ms(Math.max(...announcedAt.values()) - killedAt)} after the kill; ` +
        `their tasks moved ${ms(Math.min(...waited))}-${ms(Math.max(...waited))} after that (FAILOVER_AFTER ${FAILOVER_AFTER_S} s)`,
    );
    expect(receiver.received.filter(offline), 'device.offline events, one per phone').to.have.length(SILENT_PHONES);
    expect(early, 'tasks moved before FAILOVER_AFTER').to.deep.equal([]);
    expect(late, 'tasks moved long after FAILOVER_AFTER').to.deep.equal([]);
  });
});
