// The whole loop, end to end: three phones over the real broker, each with one SIM and its own
// number, canary rounds on, and the test playing the radio network (a phone given a task reports
// it sent; the phone owning the number it went to reports the text as a received SMS), except
// that phone A's SMS never arrive. Within three rounds the health judge finds A at fault as a
// sender (GET /devices/{id}/health says so), the gateway hands A no pool SMS (they go to B and C)
// and holds the SMS named for it, while A still gets its canaries; once A's SMS arrive again its
// next canary passes and it recovers, and takes its SMS again. device.degraded and
// device.recovered are each sent once; the canary SMS never show in the SMS list or in sms.*
// webhooks. Probes end by their timeout on the gateway's clock, which the test moves.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { topic, type RawClient } from '../support/mqtt.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';
import { deliveryRowsOf, type Row } from '../support/test-data.ts';
import type { Received } from '../support/receiver.ts';

interface Phone {
  name: string;
  id: string;
  mqtt: RawClient;
  number: string;
}

interface Task {
  sms_id: string;
  phone: string;
  message: string;
  sim: number;
}

const UNPACED = { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } };
const TIMEOUT_SECONDS = 10;
const RECIPIENT = '+79031234567';
const ofType = (type: string) => (received: Received) => received.json?.type === type;

describe('fleet health: three phones, one of whose SMS never arrive', () => {
  const clock = new ManualClock(Date.parse('2026-12-05T10:00:00Z'));
  const fx = useGateway({ clock, config: { webhooks: webhookConfig() } });

  async function phone(name: string, number: string): Promise<Phone> {
    const { device, token } = await fx.registerDevice(name);
    const patched = await fx.tenant.api.patch(`/devices/${device.id}/settings`, UNPACED);
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    const mqtt = await fx.clients.device(device.id, token);
    await mqtt.publish(topic(device.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: [{ index: 0, name_operator: 'MTS', phone_number: number }] }));
    await mqtt.subscribe(topic(device.id, 'tasks'), 1);
    return { name, id: device.id, mqtt, number };
  }

  const tasksOf = (each: Phone): Task[] => each.mqtt.messages.filter((message) => message.topic === topic(each.id, 'tasks')).map((message) => JSON.parse(message.payload) as Task);
  const taskOf = async (sender: Phone, smsId: string): Promise<Task> => {
    const message = await sender.mqtt.nextMessage((each) => each.topic === topic(sender.id, 'tasks') && JSON.parse(each.payload).sms_id === smsId);
    return JSON.parse(message.payload) as Task;
  };
  const report = (from: Phone, smsId: string, status: string) => from.mqtt.publish(topic(from.id, 'status'), JSON.stringify({ sms_id: smsId, status }));
  const sendIt = async (from: Phone, smsId: string) => {
    await report(from, smsId, 'processing');
    await report(from, smsId, 'sent');
  };

  /**
   * One canary round, carried by the radio network: every canary is sent; it arrives on the phone
   * owning its number unless its sender's SMS are lost; then the clock passes the probes' deadline
   * and the overdue ones end. Answers the round's probes.
   */
  async function round(phones: Phone[], lostFrom: ReadonlySet<string>) {
    const reply = await fx.tenant.api.post('/account/canary/run', {});
    expect(reply.status, JSON.stringify(reply.body)).to.equal(202);
    const probes = reply.body.probes as { sender_device_id: string; sms_id: string }[];
    expect(probes, 'every phone sends one canary').to.have.length(phones.length);
    for (const probe of probes) {
      const sender = phones.find((each) => each.id === probe.sender_device_id)!;
      const task = await taskOf(sender, probe.sms_id);
      await sendIt(sender, task.sms_id);
      if (lostFrom.has(sender.id)) continue;
      const owner = phones.find((each) => each.number === task.phone)!;
      await owner.mqtt.publish(
        topic(owner.id, 'incoming'),
        JSON.stringify({ id: randomUUID(), phone: sender.number, message: task.message, received_at: new Date(clock.now()).toISOString(), sim_slot: 0 }),
      );
    }
    clock.advance(TIMEOUT_SECONDS * 1000);
    await fx.gateway.services.canary.endOverdue();
    return probes;
  }

  const health = async (each: Phone) => {
    const reply = await fx.tenant.api.get(`/devices/${each.id}/health`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body;
  };

  it('then A is found degraded as a sender within three rounds, gets no pool SMS while degraded, recovers once its SMS arrive, and each change is sent once', async () => {
    const receiver = await fx.receiver();
    const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.degraded', 'device.recovered', 'sms.status_changed', 'sms.received']);
    const a = await phone('A', '+79165550001');
    const b = await phone('B', '+79165550002');
    const c = await phone('C', '+79165550003');
    const phones = [a, b, c];
    const settings = await fx.tenant.api.patch('/account/canary', { enabled: true, timeout_seconds: TIMEOUT_SECONDS });
    expect(settings.status, JSON.stringify(settings.body)).to.equal(200);
    const canarySmsIds: string[] = [];

    // A's SMS never arrive: within three rounds A is degraded, as a sender.
    const lost = new Set([a.id]);
    let rounds = 0;
    while ((await health(a)).state !== 'degraded') {
      expect(rounds, 'A is degraded within three rounds').to.be.below(3);
      canarySmsIds.push(...(await round(phones, lost)).map((probe) => probe.sms_id));
      rounds += 1;
    }
    const shown = await health(a);
    expect(shown.sims).to.have.length(1);
    expect(shown.sims[0]).to.include({ sim_slot: 0, phone_number: a.number, state: 'degraded', fault: 'send' });
    expect(shown.sims[0].degraded_since).to.be.a('string');
    const sendFailed = shown.reasons.find((reason: { code: string }) => reason.code === 'canary_send_failed');
    expect(sendFailed, JSON.stringify(shown.reasons)).to.include({ sim_slot: 0 });
    expect(sendFailed.detail).to.contain('did not reach 2 SIMs');
    expect(shown.canary.filter((result: { role: string; result: string }) => result.role === 'sender' && result.result === 'failed')).to.have.length(rounds);
    expect(shown.canary.filter((result: { role: string; result: string }) => result.role === 'receiver' && result.result === 'passed')).to.have.length(rounds);
    for (const other of [b, c]) {
      const theirs = await health(other);
      expect(theirs.state, JSON.stringify(theirs)).to.equal('healthy');
      expect(theirs.sims[0]).to.include({ state: 'healthy', fault: null });
    }
    const [degradedEvent] = await receiver.waitFor(1, ofType('device.degraded'));
    expect(degradedEvent!.json.data).to.deep.include({ device_id: a.id, sim_slot: 0, fault: 'send', reason: sendFailed.detail.replace(/^degraded since \S+: /, '') });

    // While A is degraded: pool SMS go to B and C, the SMS named for A waits, blocked by it.
    const pool: string[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await fx.tenant.api.post('/sms', { phone: RECIPIENT, message: `pool ${i}` });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      pool.push(created.body.id);
    }
    const named = await fx.tenant.api.post('/sms', { phone: RECIPIENT, message: 'for A', device_id: a.id });
    expect(named.status, JSON.stringify(named.body)).to.equal(201);
    for (const each of phones) await fx.gateway.services.dispatcher.claimFor(each.id);
    for (const id of pool) {
      const holder = await Promise.race([b, c].map(async (each) => (await taskOf(each, id), each)));
      await sendIt(holder, id);
    }
    const handed = (each: Phone) => tasksOf(each).map((task) => task.sms_id);
    expect(handed(a).filter((id) => pool.includes(id) || id === named.body.id), 'A is handed none of them').to.deep.equal([]);
    expect([...handed(b), ...handed(c)]).to.include.members(pool);
    expect((await fx.tenant.api.get(`/devices/${a.id}`)).body.queue.blocked_by).to.equal('degraded');

    // A's SMS arrive again: the next round's canary from A passes and A recovers; the SMS named
    // for it is handed to it.
    lost.clear();
    canarySmsIds.push(...(await round(phones, lost)).map((probe) => probe.sms_id));
    const recovered = await health(a);
    expect(recovered.state, JSON.stringify(recovered)).to.equal('healthy');
    expect(recovered.sims[0]).to.include({ state: 'healthy', fault: null, degraded_since: null });
    expect(recovered.canary[0]).to.include({ result: 'passed' });
    const [recoveredEvent] = await receiver.waitFor(1, ofType('device.recovered'));
    expect(recoveredEvent!.json.data).to.deep.include({ device_id: a.id, sim_slot: 0, fault: 'send' });
    expect(recoveredEvent!.json.data.reason).to.match(/^a canary SMS it sent arrived again/);
    await fx.gateway.services.dispatcher.claimFor(a.id);
    await sendIt(a, (await taskOf(a, named.body.id)).sms_id);

    // Another round, all well: nothing changes, nothing more is announced.
    canarySmsIds.push(...(await round(phones, lost)).map((probe) => probe.sms_id));
    const deliveries = await deliveryRowsOf(fx, webhook.id);
    const count = (type: string) => deliveries.filter((row: Row) => row.event_type === type).length;
    expect(count('device.degraded')).to.equal(1);
    expect(count('device.recovered')).to.equal(1);

    // The canary SMS are the gateway's own: not in the SMS list, not in sms.* webhooks, and the
    // codes received are not received SMS.
    expect(count('sms.received')).to.equal(0);
    const ordinary = [...pool, named.body.id];
    const listed = (await fx.tenant.api.get('/sms?limit=100')).body.data.map((sms: { id: string }) => sms.id);
    expect(listed).to.have.members(ordinary);
    const statusEvents = deliveries.filter((row: Row) => row.event_type === 'sms.status_changed').map((row: Row) => JSON.parse(row.body).data.sms.id);
    expect(new Set(statusEvents)).to.deep.equal(new Set(ordinary));
    expect(statusEvents.some((id: string) => canarySmsIds.includes(id))).to.equal(false);
    expect(canarySmsIds).to.have.length(3 * (rounds + 2));
  });
});
