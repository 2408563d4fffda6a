// A node dies without a goodbye (kill -9) while its phones hold queued work. Three real `serve`
// processes; node A is killed. What must follow, whatever A was doing:
// - a phone that reconnects (to B: the load balancer sends it elsewhere) finishes what it had
//   acknowledged and gets the rest, and is never reported offline;
// - a phone that does not come back is shown offline by the surviving nodes and announced
//   (device.offline, once) within PRESENCE_LEASE and a few seconds, and the tasks it never
//   acknowledged go to another phone FAILOVER_AFTER later;
// - every SMS ends delivered, sent over the radio exactly once, each status recorded once.
import { expect } from 'chai';
import { nextEvent } from '../support/devices.ts';
import type { Received } from '../support/receiver.ts';
import { FAILOVER_AFTER_S, MOVE_SLACK_MS, PRESENCE_LEASE_S, useDeployment } from './support/deployment.ts';
import { retainedPresence } from './support/operator.ts';
import { isOnline, moveTo, phoneOn, registerPhone, silentPhoneOn } from './support/phones.ts';
import { allDelivered, expectDeliveredOnce, sendSms, smsState, statusSummary } from './support/sms.ts';
import { ms, until } from './support/waits.ts';

const SMS_COUNT = 8;
/** How long the phone that returns takes to send each SMS: time enough to move between two reports. */
const SEND_MS = 1_500;
/** Send window of the two phones on A: together they hold 6 of the 8 SMS, the rest wait in the pool. */
const WINDOW_ON_A = { send_window: 3, limits: { per_minute: null, per_hour: null, per_day: null } };
/** How long after the kill the surviving nodes may take to see a phone gone: the lease, a renewal period, a check. */
const NOTICE_MS = (PRESENCE_LEASE_S + 3) * 1000;

describe('multi-node: a node killed with -9 while its phones hold work', function () {
  this.timeout(60_000);
  // No task is published again while the phones hold them (TASK_RETRY_AFTER): the phone that
  // returns acknowledges a task only when it starts it, never a repeat of one it has queued.
  const deployment = useDeployment({ nodes: ['a', 'b', 'c'], env: { TASK_RETRY_AFTER: '60' } });

  it('when node A is killed, then the phone that reconnects to B and the phone on C deliver every SMS once, and the phone that does not come back is shown offline, announced once and its unacknowledged tasks move', async () => {
    const tenant = await deployment.tenant();
    const receiver = await deployment.receiver();
    const hook = await tenant.on('b').post('/webhooks', { url: receiver.url, events: ['device.online', 'device.offline'] });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
    const offlineOf = (deviceId: string) => (r: Received) => r.json?.type === 'device.offline' && r.json?.data?.device?.id === deviceId;

    const [a, b, c] = [deployment.node('a'), deployment.node('b'), deployment.node('c')];
    const returning = await registerPhone(tenant.on('b'), 'returns-on-b', WINDOW_ON_A);
    const stranded = await registerPhone(tenant.on('b'), 'never-returns', WINDOW_ON_A);
    const survivor = await registerPhone(tenant.on('b'), 'on-c');

    // On A: one phone works one task at a time (it reports sent SEND_MS after acknowledging), one takes tasks and never acknowledges.
    const returningPhone = await phoneOn(deployment, a, returning, { maxConcurrentTasks: 1, delays: { sent: SEND_MS } });
    const silent = await silentPhoneOn(deployment, a, stranded);
    const ids: string[] = [];
    for (let i = 0; i < SMS_COUNT; i++) ids.push(await sendSms(tenant.on(i % 2 === 0 ? 'b' : 'c'), `queued #${i}`));
    await until(
      'both phones on A holding tasks, one of them acknowledged',
      async () => silent.tasks.length > 0 && [...returningPhone.handled.keys()].length > 1 && returningPhone.sendCount.size > 0,
      10_000,
      () => `silent phone holds ${new Set(silent.tasks).size}, returning phone took ${returningPhone.handled.size}`,
    );
    // The phone on C comes after the phones on A took their share, so that it starts with the pool's leftovers.
    const survivorPhone = await phoneOn(deployment, c, survivor);
    for (const name of ['b', 'c']) {
      for (const device of [returning, stranded]) await until(`${name} showing a phone on A online`, () => isOnline(tenant.on(name), device.id), 3_000);
    }

    // A dies just after the phone acknowledged a task: nothing of the phone's is on the wire (the
    // simulator, unlike the app, would lose a report in flight), its next report is SEND_MS away.
    await nextEvent(returningPhone, 'report', (_id: string, status: string) => status === 'processing', 2 * SEND_MS + 5_000);
    const strandedTasks = new Set(silent.tasks);
    const acknowledgedOnA = new Set([...returningPhone.sendCount.keys()]);
    // When another phone first got each of the stranded phone's tasks (Date.now(), the clock of webhook timestamps).
    const movedAt = new Map<string, number>();
    for (const phone of [survivorPhone, returningPhone]) {
      phone.on('task', (task) => {
        if (strandedTasks.has(task.sms_id) && !movedAt.has(task.sms_id)) movedAt.set(task.sms_id, Date.now());
      });
    }
    await a.kill();
    const killedAt = Date.now();
    await moveTo(returningPhone, b);
    const returnedMs = Date.now() - killedAt;

    // The phone that does not come back.
    await until(
      'B and C showing the stranded phone offline',
      async () => !(await isOnline(tenant.on('b'), stranded.id)) && !(await isOnline(tenant.on('c'), stranded.id)),
      NOTICE_MS + 5_000,
    );
    const shownOfflineMs = Date.now() - killedAt;
    const announced = await receiver.waitFor(1, offlineOf(stranded.id), NOTICE_MS + 5_000);
    const announcedMs = Date.parse(announced[0]!.json.timestamp) - killedAt;
    await until(
      'the stranded phone\'s tasks on another phone',
      async () => movedAt.size === strandedTasks.size,
      FAILOVER_AFTER_S * 1000 + 10_000,
      () => `${strandedTasks.size - movedAt.size} of ${strandedTasks.size} not moved`,
    );
    const firstMovedMs = Math.min(...movedAt.values()) - killedAt;
    const lastMovedMs = Math.max(...movedAt.values()) - killedAt;

    // Every SMS.
    await until('every SMS delivered, read on C', () => allDelivered(tenant.on('c'), ids), 20_000, () => statusSummary(tenant.on('c'), ids));
    const allDeliveredMs = Date.now() - killedAt;
    console.log(
      `      kill -9 of A: returning phone connected to B after ${ms(returnedMs)}; stranded phone offline on B and C after ${ms(shownOfflineMs)}, ` +
        `device.offline stamped ${ms(announcedMs)} after the kill; its ${strandedTasks.size} tasks on other phones after ${ms(firstMovedMs)}-${ms(lastMovedMs)}; ` +
        `all ${SMS_COUNT} SMS delivered after ${ms(allDeliveredMs)}`,
    );
    for (const id of ids) {
      const sends = (returningPhone.sendCount.get(id) ?? 0) + (survivorPhone.sendCount.get(id) ?? 0);
      expect(sends, `SMS ${ids.indexOf(id)} sent over the radio`).to.equal(1);
      expectDeliveredOnce(await smsState(tenant.on('b'), id), `SMS ${ids.indexOf(id)}`);
    }
    for (const id of acknowledgedOnA) expect(returningPhone.sendCount.get(id), 'acknowledged on A: finished by the same phone').to.equal(1);

    expect(announcedMs, 'device.offline within the lease and a few seconds').to.be.below(NOTICE_MS);
    // Not before FAILOVER_AFTER (the phone might have come back), and not much later (one sweep and a claim).
    expect(firstMovedMs - announcedMs, 'tasks moved after the phone was found offline').to.be.at.least(FAILOVER_AFTER_S * 1000 - 100);
    expect(lastMovedMs - announcedMs, 'tasks moved after the phone was found offline').to.be.below(FAILOVER_AFTER_S * 1000 + MOVE_SLACK_MS);
    expect(receiver.received.filter(offlineOf(stranded.id)), 'device.offline of the stranded phone').to.have.length(1);
    expect(receiver.received.filter(offlineOf(returning.id)), 'device.offline of the phone that reconnected at once').to.have.length(0);
    for (const api of [tenant.on('b'), tenant.on('c')]) {
      expect(await isOnline(api, returning.id), 'the returning phone, online').to.equal(true);
      expect(await isOnline(api, survivor.id), 'the phone on C, online').to.equal(true);
    }
    expect(await retainedPresence(deployment, c, tenant.key, stranded.id), 'retained presence of the stranded phone').to.equal('offline');
    expect(await retainedPresence(deployment, c, tenant.key, returning.id), 'retained presence of the returning phone').to.equal('online');
  });
});
