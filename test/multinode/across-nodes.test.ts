// Several nodes, one deployment: three real `sms-gateway serve` processes (A, B, C) on one
// PostgreSQL and one Redis. What an operator running several nodes behind a load balancer relies
// on: an SMS made on any node reaches the phone wherever it is connected, at once (not at the next
// sweep), and a large batch is shared by the phones of every node, each SMS sent once; a phone may
// move between nodes in the middle of a task, or connect to a second node while its old connection
// lingers on the first, without any status recorded twice or any offline event for the move, and
// its send window holds through such moves; a revoked key stops working on every node within a
// second; an operator watching over MQTT, or the panel's live stream, on one node sees the phones
// of every node; a no_store SMS reaches a phone on another node; and each node names itself in its
// logs and metrics, and logs no phone number or message.
import { expect } from 'chai';
import type { SendTask } from '../../src/modules/delivery/task.ts';
import { nextEvent } from '../support/devices.ts';
import { scrapeMetrics } from '../support/metrics.ts';
import { EventStreamClient } from '../support/event-stream.ts';
import { TASK_RETRY_AFTER_S, useDeployment } from './support/deployment.ts';
import { awaitRetainedPresence, retainedPresence, watch } from './support/operator.ts';
import { isOnline, moveTo, phoneOn, registerPhone, silentPhoneOn } from './support/phones.ts';
import { allDelivered, compareWakeUps, expectDeliveredOnce, PHONE_NUMBER, sendSms, smsState, statusSummary, timeToTask } from './support/sms.ts';
import { ms, until, within } from './support/waits.ts';

/** The dispatcher's sweep interval: a wake-up that works must beat it by far. */
const SWEEP_MS = 1_000;

describe('multi-node: across three serve processes', function () {
  this.timeout(30_000);
  const deployment = useDeployment({ nodes: ['a', 'b', 'c'] });

  it('when SMS are created through nodes B and C, then the phone on node A receives them about as fast as SMS made on A, well before a sweep, and B shows them delivered', async () => {
    const tenant = await deployment.tenant();
    const device = await registerPhone(tenant.on('a'), 'phone-on-a');
    const phone = await phoneOn(deployment, deployment.node('a'), device);

    const toDelivered: number[] = [];
    const times = await compareWakeUps(
      8,
      async (i) => (await timeToTask(tenant.on('a'), phone, `made on a #${i}`, true)).ms,
      async (i) => {
        const creator = i % 2 === 0 ? 'b' : 'c';
        const started = performance.now();
        const { id, ms: took } = await timeToTask(tenant.on(creator), phone, `made on ${creator} #${i}`, true);
        await until(`SMS ${i} delivered, read on B`, async () => (await smsState(tenant.on('b'), id)).status === 'delivered', 5_000);
        toDelivered.push(performance.now() - started);
        expectDeliveredOnce(await smsState(tenant.on('b'), id), `SMS ${i}`);
        return took;
      },
    );
    console.log(
      `      task on A, median: made on A ${ms(times.local)}, made on B/C ${ms(times.remote)} (slowest ${ms(times.slowestRemote)}); ` +
        `made on B/C -> delivered read on B: slowest ${ms(Math.max(...toDelivered))}`,
    );
    expect(times.remote - times.local, 'median cost of crossing nodes').to.be.below(SWEEP_MS / 4);
    expect(times.slowestRemote, 'slowest across nodes').to.be.below(SWEEP_MS + times.local);
    const listed = await tenant.on('c').get('/devices');
    expect(listed.body.data.find((row: { id: string }) => row.id === device.id), 'GET /devices on C').to.include({ is_online: true });
  });

  it('when 300 SMS are posted in one bulk request on node B, then phones on A, B and C share them and each SMS is sent once', async () => {
    const tenant = await deployment.tenant();
    const phones = await Promise.all(
      ['a', 'b', 'c'].map(async (name) => phoneOn(deployment, deployment.node(name), await registerPhone(tenant.on(name), `bulk-on-${name}`))),
    );
    const started = performance.now();
    const messages = Array.from({ length: 300 }, (_, i) => ({ phone: PHONE_NUMBER, message: `bulk #${i}` }));
    const created = await tenant.on('b').post('/sms/bulk', { messages });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const ids = (created.body.data as { id: string }[]).map((sms) => sms.id);
    const delivered = await until('every SMS of the bulk delivered', () => allDelivered(tenant.on('c'), ids), 30_000, () => statusSummary(tenant.on('c'), ids));
    const shares = phones.map((phone) => ids.filter((id) => phone.sendCount.has(id)).length);
    console.log(`      300 SMS posted on B: all delivered ${ms(performance.now() - started)} after the request (${ms(delivered.ms)} of waiting), sent by the phones on A, B, C: ${shares.join(', ')}`);
    for (const id of ids) expect(phones.reduce((sum, phone) => sum + (phone.sendCount.get(id) ?? 0), 0), `SMS ${id} sent over the radio`).to.equal(1);
    expect(shares.every((share) => share > 0), 'every node\'s phone took a share').to.equal(true);
  });

  it('when a phone acknowledges a task on A, then moves to B and reports sent and delivered there, then each status is recorded once', async () => {
    const tenant = await deployment.tenant();
    const device = await registerPhone(tenant.on('a'), 'moving-phone');
    // It sends (reports sent) 1.5 s after acknowledging: the time it has to move.
    const phone = await phoneOn(deployment, deployment.node('a'), device, { delays: { sent: 1_500 } });

    const acknowledged = nextEvent(phone, 'report', (_id: string, status: string) => status === 'processing', 5_000);
    const id = await sendSms(tenant.on('b'), 'moves mid-task', device.id);
    expect((await acknowledged)[0]).to.equal(id);
    // A fresh session on B: the unfinished task comes again from the database, and the phone, which knows it, acknowledges it again.
    const resent = nextEvent(phone, 'task', (task: SendTask, redelivered: boolean) => task.sms_id === id && redelivered, 5_000);
    await moveTo(phone, deployment.node('b'));
    expect(phone.handled.get(id), 'moved before reporting sent: sent and delivered go to B').to.equal('processing');
    await resent;

    const { ms: took } = await until('delivered, read on B', async () => (await smsState(tenant.on('b'), id)).status === 'delivered', 10_000);
    console.log(`      moved A -> B mid-task: delivered ${ms(took)} after the move`);
    expectDeliveredOnce(await smsState(tenant.on('b'), id), 'read on B');
    expectDeliveredOnce(await smsState(tenant.on('a'), id), 'read on A');
    expect(phone.sendCount.get(id), 'sent over the radio').to.equal(1);
    await awaitRetainedPresence(deployment, deployment.node('a'), tenant.key, device.id, 'online', 3_000, 'after the move, read on A');
  });

  it('when a phone connects to B while its old connection to A is open, then A closes the old one, the phone stays online everywhere, no offline or online event is sent for the move, and a task is delivered once', async () => {
    const tenant = await deployment.tenant();
    const receiver = await deployment.receiver();
    const hook = await tenant.on('a').post('/webhooks', { url: receiver.url, events: ['device.online', 'device.offline'] });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
    const device = await registerPhone(tenant.on('a'), 'taken-over');
    const about = (type: string) => receiver.received.filter((r) => r.json?.type === type && r.json?.data?.device?.id === device.id);

    // The old connection, as the app makes it; it never reconnects by itself.
    const { client: old, tasks: oldTasks } = await silentPhoneOn(deployment, deployment.node('a'), device);
    await receiver.waitFor(1, (r) => r.json?.type === 'device.online' && r.json?.data?.device?.id === device.id, 10_000);

    const oldClosed = new Promise<number>((resolve) => old.once('close', () => resolve(performance.now())));
    const started = performance.now();
    const phone = await phoneOn(deployment, deployment.node('b'), device);
    const closedAt = await within(oldClosed, 5_000, 'A closing the old connection');
    console.log(`      takeover: A closed the old connection ${ms(closedAt - started)} after the phone connected to B`);
    expect(old.connected, 'old connection on A').to.equal(false);

    for (const name of ['a', 'b', 'c']) {
      await until(`GET /devices/{id} on ${name} showing the phone online`, () => isOnline(tenant.on(name), device.id), 3_000);
    }
    const id = await sendSms(tenant.on('c'), 'after the takeover', device.id);
    await until('delivered, read on C', async () => (await smsState(tenant.on('c'), id)).status === 'delivered', 10_000);
    expectDeliveredOnce(await smsState(tenant.on('a'), id), 'read on A');
    expect(phone.sendCount.get(id)).to.equal(1);
    expect(oldTasks, 'tasks the old connection got').to.deep.equal([]);
    for (const name of ['a', 'b', 'c']) expect(await isOnline(tenant.on(name), device.id), `online on ${name} after the task`).to.equal(true);
    expect(await retainedPresence(deployment, deployment.node('a'), tenant.key, device.id), 'retained presence after the takeover, read on A').to.equal('online');

    // A real disconnection ends the test: its offline event is the only one, so none came for the move.
    const leftAt = Date.now();
    await phone.kill();
    const real = (r: { json?: any }) => r.json?.type === 'device.offline' && r.json?.data?.device?.id === device.id && Date.parse(r.json.timestamp) >= leftAt;
    await receiver.waitFor(1, real, 15_000);
    expect(about('device.offline'), 'device.offline events: the real disconnection only').to.have.length(1);
    expect(about('device.online'), 'device.online events: the first connection only').to.have.length(1);
  });

  it('when a phone with a send window of 2 is taken over from node to node without acknowledging, then it is only ever given the same 2 tasks', async () => {
    const tenant = await deployment.tenant();
    const device = await registerPhone(tenant.on('a'), 'window-of-2', { send_window: 2, limits: { per_minute: null, per_hour: null, per_day: null } });
    for (let i = 0; i < 6; i++) await sendSms(tenant.on(['a', 'b', 'c'][i % 3]!), `window #${i}`);
    const distinct = (tasks: string[]) => [...new Set(tasks)].sort();

    const onA = await silentPhoneOn(deployment, deployment.node('a'), device);
    await until('2 tasks on A', async () => distinct(onA.tasks).length === 2, 5_000);
    const given = distinct(onA.tasks);
    const onB = await silentPhoneOn(deployment, deployment.node('b'), device);
    await until('the same 2 tasks sent again on B', async () => distinct(onB.tasks).length === 2, 5_000, () => `${distinct(onB.tasks).length} on B`);
    const onC = await silentPhoneOn(deployment, deployment.node('c'), device);
    await until('the same 2 tasks sent again on C', async () => distinct(onC.tasks).length === 2, 5_000, () => `${distinct(onC.tasks).length} on C`);
    // Unacknowledged, they are published again after TASK_RETRY_AFTER: a sweep of C has run since the phone came.
    await until('a task published again on C', async () => onC.tasks.length > 2, TASK_RETRY_AFTER_S * 1000 + 3_000);

    expect(distinct(onB.tasks), 'tasks sent on B').to.deep.equal(given);
    expect(distinct(onC.tasks), 'tasks sent on C').to.deep.equal(given);
    const held = await tenant.on('c').get(`/sms?device_id=${device.id}`);
    expect(held.body.data.map((sms: { id: string }) => sms.id).sort(), 'SMS of the phone').to.deep.equal(given);
  });

  it('when a key is revoked on node A, then nodes B and C, which had it cached, refuse it within 1 s', async () => {
    const tenant = await deployment.tenant();
    const created = await tenant.on('a').post('/keys', { permissions: ['devices:read'], name: 'to revoke' });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const onB = deployment.node('b').api(created.body.key);
    const onC = deployment.node('c').api(created.body.key);
    expect((await onB.get('/devices')).status, 'B caches the live key').to.equal(200);
    expect((await onC.get('/devices')).status, 'C caches the live key').to.equal(200);

    expect((await tenant.on('a').delete(`/keys/${created.body.id}`)).status).to.equal(200);
    const { ms: took } = await until('B and C refusing the key', async () => (await onB.get('/devices')).status === 401 && (await onC.get('/devices')).status === 401, 5_000);
    console.log(`      key revoked on A: refused on B and C after ${ms(took)}`);
    expect(took).to.be.below(1_000);
  });

  it('when an operator watches on node A, then it sees the retained presence and heartbeat of a phone on node B, its live status reports, and its going offline', async () => {
    const tenant = await deployment.tenant();
    const device = await registerPhone(tenant.on('a'), 'watched-on-b');
    const phone = await phoneOn(deployment, deployment.node('b'), device);

    const { seen } = await watch(deployment, deployment.node('a'), tenant.key, device.id, ['presence', 'heartbeat', 'status']);
    // A live message (the gateway announcing the phone) may come before the retained ones: look for those.
    const retained = (kind: string) => seen.find((m) => m.kind === kind && m.retain);
    await until('the retained presence and heartbeat, on A', async () => Boolean(retained('presence') && retained('heartbeat')), 3_000, () =>
      seen.map((m) => `${m.kind} ${m.payload.slice(0, 20)}${m.retain ? ' (retained)' : ''}`).join(', '),
    );
    expect(retained('presence')!.payload, 'retained presence').to.equal('online');
    expect(JSON.parse(retained('heartbeat')!.payload)).to.include({ battery_level: phone.batteryLevel });

    const id = await sendSms(tenant.on('c'), 'watched from A', device.id);
    const statuses = () => seen.filter((m) => m.kind === 'status' && JSON.parse(m.payload).sms_id === id).map((m) => JSON.parse(m.payload).status as string);
    await until('the status reports, live on A', async () => statuses().includes('delivered'), 5_000, () => statuses().join(', '));
    expect(statuses()).to.deep.equal(['processing', 'sent', 'delivered']);

    await phone.kill();
    await until('"offline" on A', async () => seen.some((m) => m.kind === 'presence' && m.payload === 'offline'), 5_000);
  });
  it('when the live event stream is open on node C, then it carries the presence of a phone on B and the status changes of an SMS made on A, each once', async () => {
    const tenant = await deployment.tenant();
    const stream = await EventStreamClient.open(`${deployment.node('c').baseUrl}/api/ext/v1/events`, { authorization: `Bearer ${tenant.key}` });
    deployment.afterTest(() => stream.stop());
    expect(stream.status).to.equal(200);
    const device = await registerPhone(tenant.on('a'), 'streamed-on-b');
    await phoneOn(deployment, deployment.node('b'), device);
    await stream.next('device.presence', (data) => data.id === device.id && data.online === true);

    const id = await sendSms(tenant.on('a'), 'streamed', device.id);
    await stream.next('sms.status', (data) => data.id === id && data.status === 'delivered');
    const changes = stream.events.filter((event) => event.type === 'sms.status' && event.data.id === id).map((event) => event.data.internal_status);
    // The creation is announced too (pending), on node A where it was made.
    expect(changes).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
  });

  it('when a no_store SMS is posted on node B, then it is refused while no phone of the account is online anywhere, and reaches the phone on node A once one is', async () => {
    const tenant = await deployment.tenant();
    const device = await registerPhone(tenant.on('a'), 'no-store-on-a');
    const body = { phone: PHONE_NUMBER, message: 'never stored', no_store: true };
    const refused = await tenant.on('b').post('/sms', body);
    expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
    expect(refused.body.error.code).to.equal('no_device_available');

    const phone = await phoneOn(deployment, deployment.node('a'), device);
    await until('B seeing the phone on A online', () => isOnline(tenant.on('b'), device.id), 3_000);
    const received = nextEvent(phone, 'task', (task: SendTask) => task.message === body.message, 5_000);
    const accepted = await tenant.on('b').post('/sms', body);
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(201);
    expect((await received)[0].sms_id).to.equal(accepted.body.id);
    await until('the phone done with it', async () => phone.handled.get(accepted.body.id) === 'delivered', 5_000);
    expect(phone.sendCount.get(accepted.body.id)).to.equal(1);
  });

  // Runs last: by then the nodes have logged the work of every test above.
  it('when three nodes log and are scraped, then every log line and every metrics sample names the node it came from, and no line carries a phone number or a message', async () => {
    for (const name of ['a', 'b', 'c']) {
      const node = deployment.node(name);
      expect(node.lines.length, `log lines of ${name}`).to.be.above(0);
      expect(node.lines.filter((line) => line.node !== node.nodeId), `log lines of ${name} without its NODE_ID`).to.deep.equal([]);
      const revealing = node.lines.map((line) => JSON.stringify(line)).filter((text) => text.includes(PHONE_NUMBER.slice(1)) || /made on|moves mid-task|after the takeover|watched from|streamed|never stored|bulk #|window #/.test(text));
      expect(revealing, `log lines of ${name} with a phone number or a message text`).to.deep.equal([]);
      const response = await scrapeMetrics(node.baseUrl);
      expect(response.status).to.equal(200);
      const samples = (await response.text()).split('\n').filter((line) => line && !line.startsWith('#'));
      expect(samples.length, `metrics samples of ${name}`).to.be.above(0);
      expect(samples.filter((sample) => !sample.includes(`node="${node.nodeId}"`)), `samples of ${name} without its node label`).to.deep.equal([]);
    }
  });
});
