// Canary rounds with phones the test drives over the real broker, the test playing the radio
// network: a phone given a task reports it sent, and the phone owning the number it went to
// reports the text as a received SMS. A round gives each eligible SIM one canary to another SIM
// of the account, named for the sender's device and SIM; a probe passes when its receiver reports
// the code, fails at its deadline or when its SMS ends failed_send; partners rotate from round to
// round. The canary SMS and the code received stay out of every list, conversation and webhook.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { topic, type RawClient } from '../support/mqtt.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';
import { canaryProbesOfRound, degradedSimsOf, deliveryRowsOf, incomingRowsOf, simHealthOf, smsRow, type Row } from '../support/test-data.ts';
import { ManualClock } from '../../src/common/clock.ts';
import { CANARY_TEXT } from '../../src/modules/fleet-health/canary/code.ts';

interface Sim {
  slot: number;
  number: string;
}

interface Phone {
  id: string;
  mqtt: RawClient;
  sims: Sim[];
}

interface Task {
  sms_id: string;
  phone: string;
  message: string;
  sim: number;
}

const UNPACED = { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } };

describe('fleet health: canary rounds', () => {
  const clock = new ManualClock();
  const fx = useGateway({ clock, config: { webhooks: webhookConfig() } });
  let numbers = 0;
  const newNumber = () => `+7916555${String(1000 + (numbers++ % 9000)).padStart(4, '0')}`;

  /** A phone with these SIMs (their numbers in its heartbeat unless `owner` sets them), online and taking tasks. */
  async function phone(name: string, slots: number[], options: { numberless?: number[]; owner?: boolean; settings?: object } = {}): Promise<Phone> {
    const { device, token } = await fx.registerDevice(name);
    const sims = slots.map((slot) => ({ slot, number: newNumber() }));
    const cards = sims.map((sim) => ({ index: sim.slot, name_operator: `Op ${sim.slot}`, ...(options.owner || options.numberless?.includes(sim.slot) ? {} : { phone_number: sim.number }) }));
    const owned = options.owner ? Object.fromEntries(sims.map((sim) => [String(sim.slot), sim.number])) : {};
    const patched = await fx.tenant.api.patch(`/devices/${device.id}/settings`, { ...UNPACED, ...(options.owner ? { sim_numbers: owned } : {}), ...options.settings });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    const mqtt = await fx.clients.device(device.id, token);
    await mqtt.publish(topic(device.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: cards }));
    await mqtt.subscribe(topic(device.id, 'tasks'), 1);
    return { id: device.id, mqtt, sims: sims.filter((sim) => !options.numberless?.includes(sim.slot)) };
  }

  const run = async () => {
    const reply = await fx.tenant.api.post('/account/canary/run', {});
    expect(reply.status, JSON.stringify(reply.body)).to.equal(202);
    return reply.body as { round: number; probes: any[]; skipped: any[] };
  };
  const taskOf = async (sender: Phone, smsId: string): Promise<Task> => {
    const message = await sender.mqtt.nextMessage((each) => each.topic === topic(sender.id, 'tasks') && JSON.parse(each.payload).sms_id === smsId);
    return JSON.parse(message.payload) as Task;
  };
  const report = (from: Phone, smsId: string, status: string, extra: object = {}) =>
    from.mqtt.publish(topic(from.id, 'status'), JSON.stringify({ sms_id: smsId, status, ...extra }));
  const receive = (on: Phone, from: string, text: string, slot: number | undefined, id: string = randomUUID()) =>
    on.mqtt.publish(topic(on.id, 'incoming'), JSON.stringify({ id, phone: from, message: text, received_at: new Date(clock.now()).toISOString(), ...(slot !== undefined ? { sim_slot: slot } : {}) }));

  /** The radio network: each probe's task is sent by its phone and arrives on the phone owning the number (unless `lost`). */
  async function carry(phones: Phone[], probes: any[], lost: (probe: any) => boolean = () => false): Promise<Task[]> {
    const byId = new Map(phones.map((each) => [each.id, each]));
    const tasks: Task[] = [];
    for (const probe of probes) {
      const sender = byId.get(probe.sender_device_id)!;
      const task = await taskOf(sender, probe.sms_id);
      tasks.push(task);
      await report(sender, task.sms_id, 'processing');
      await report(sender, task.sms_id, 'sent');
      if (lost(probe)) continue;
      const owner = phones.flatMap((each) => each.sims.map((sim) => ({ phone: each, sim }))).find((each) => each.sim.number === task.phone)!;
      const from = sender.sims.find((sim) => sim.slot === task.sim)!.number;
      await receive(owner.phone, from, task.message, owner.sim.slot);
    }
    return tasks;
  }

  const probesOf = (roundNumber: number): Promise<Row[]> => canaryProbesOfRound(fx, fx.tenant.accountId, roundNumber);

  it('when a round runs, then each eligible SIM is given one canary to another SIM of the account, named for its device and SIM; SIMs left out are said with why', async () => {
    const a = await phone('A', [0, 1]);
    const b = await phone('B', [0], { owner: true });
    const c = await phone('C', [0], { numberless: [0] });
    const off = await phone('D', [0], { settings: { forward_incoming_sms: false } });
    const { device: offline } = await fx.registerDevice('never connected');

    const round = await run();
    expect(round.round).to.equal(0);
    expect(round.probes).to.have.length(3);
    expect(round.skipped).to.have.deep.members([
      { device_id: c.id, sim_slot: 0, reason: 'no_number' },
      { device_id: off.id, sim_slot: null, reason: 'forwarding_off' },
      { device_id: offline.id, sim_slot: null, reason: 'offline' },
    ]);
    const numberOf = new Map([...a.sims.map((sim) => [`${a.id}/${sim.slot}`, sim.number] as const), [`${b.id}/0`, b.sims[0]!.number]]);
    const senders = round.probes.map((probe) => `${probe.sender_device_id}/${probe.sender_sim_slot}`);
    const receivers = round.probes.map((probe) => `${probe.receiver_device_id}/${probe.receiver_sim_slot}`);
    expect(senders).to.have.members([...numberOf.keys()]);
    expect(receivers).to.have.members([...numberOf.keys()]);
    for (const probe of round.probes) {
      expect(probe.result).to.equal('pending');
      expect(`${probe.receiver_device_id}/${probe.receiver_sim_slot}`).to.not.equal(`${probe.sender_device_id}/${probe.sender_sim_slot}`);
      expect(probe.code).to.match(/^[A-Z2-7]{8}$/);
      const sender = probe.sender_device_id === a.id ? a : b;
      const task = await taskOf(sender, probe.sms_id);
      expect(task.sim).to.equal(probe.sender_sim_slot);
      expect(task.phone).to.equal(numberOf.get(`${probe.receiver_device_id}/${probe.receiver_sim_slot}`));
      expect(task.message).to.equal(`Gateway check ${probe.code}`).and.match(CANARY_TEXT);
      const sms = await smsRow(fx, probe.sms_id);
      expect(sms).to.include({ kind: 'canary', device_id: probe.sender_device_id, device_named: true, transactional: true, phone: task.phone });
      expect(Number(sms.sim_slot)).to.equal(probe.sender_sim_slot);
      expect(Number(sms.priority), 'first in its device\'s queue').to.equal(100);
      expect(new Date(sms.expires_at).toISOString()).to.equal(probe.deadline_at);
    }
    expect(c.mqtt.messages.filter((each) => each.topic === topic(c.id, 'tasks'))).to.have.length(0);
    expect((await fx.tenant.api.get('/account/canary')).body).to.include({ rounds_run: 1, last_round_at: new Date(clock.now()).toISOString() });
  });

  it('when each receiver reports its code, then every probe passes with its round trip, and nothing is stored as a received SMS, a conversation or a webhook', async () => {
    const receiver = await fx.receiver();
    const { webhook } = await createWebhook(fx.tenant, receiver.url, ['sms.status_changed', 'sms.received']);
    const a = await phone('A', [0, 1]);
    const b = await phone('B', [0]);
    const round = await run();
    clock.advance(1_500);
    await carry([a, b], round.probes);

    for (const probe of await probesOf(0)) {
      expect(probe).to.include({ result: 'passed', failure: null });
      expect(Number(probe.round_trip_ms)).to.equal(1_500);
    }
    expect(await incomingRowsOf(fx, fx.tenant.accountId)).to.have.length(0);
    expect((await fx.tenant.api.get('/conversations')).body.data).to.deep.equal([]);
    expect((await fx.tenant.api.get('/sms')).body.data).to.deep.equal([]);
    expect((await fx.tenant.root.get('/sms?limit=100')).body).to.deep.include({ sms_list: [] });
    expect((await fx.tenant.root.get('/sms?limit=100')).body.pagination.total_records).to.equal(0);
    const canaries = (await fx.tenant.api.get('/sms?kind=canary')).body.data;
    expect(canaries.map((sms: { id: string }) => sms.id)).to.have.members(round.probes.map((probe) => probe.sms_id));
    for (const sms of canaries) expect(sms).to.include({ kind: 'canary', status: 'sent' });

    // An ordinary SMS and a received SMS, carried the same way, are told: the webhook did hear the
    // account, and left out only the canaries.
    const sent = await fx.tenant.api.post('/sms', { phone: '+79031234567', message: 'hello', device_id: a.id });
    const task = await taskOf(a, sent.body.id);
    await report(a, task.sms_id, 'processing');
    await report(a, task.sms_id, 'sent');
    await receive(b, '+79031234567', 'a reply', 0);
    const deliveries = await deliveryRowsOf(fx, webhook.id);
    expect(deliveries.map((row: Row) => row.event_type).sort()).to.deep.equal(['sms.received', 'sms.status_changed', 'sms.status_changed']);
    const statusEvents = deliveries.filter((row: Row) => row.event_type === 'sms.status_changed');
    expect(statusEvents.every((row: Row) => JSON.stringify(row).includes(sent.body.id)), 'every status event is the ordinary SMS\'s').to.equal(true);
    expect((await fx.tenant.api.get('/sms')).body.data.map((sms: { id: string }) => sms.id)).to.deep.equal([sent.body.id]);
    expect((await fx.tenant.root.get('/sms?limit=100')).body.pagination.total_records).to.equal(1);
    expect((await fx.tenant.api.get('/conversations')).body.data.map((each: { phone: string }) => each.phone)).to.deep.equal(['+79031234567']);
  });

  it('when a code is reported again, or arrives on another phone, then it is still not stored; a text of the same form with an unknown code is an ordinary received SMS', async () => {
    const a = await phone('A', [0]);
    const b = await phone('B', [0]);
    const c = await phone('C', [0]);
    const round = await run();
    const [first, second] = round.probes;
    const byId = new Map([a, b, c].map((each) => [each.id, each]));
    const firstSender = byId.get(first.sender_device_id)!;
    await taskOf(firstSender, first.sms_id);
    const receiverOfFirst = byId.get(first.receiver_device_id)!;
    const reportId = randomUUID();
    await receive(receiverOfFirst, firstSender.sims[0]!.number, `Gateway check ${first.code}`, 0, reportId);
    await receive(receiverOfFirst, firstSender.sims[0]!.number, `Gateway check ${first.code}`, 0, reportId);
    await receive(receiverOfFirst, firstSender.sims[0]!.number, `Gateway check ${first.code}`, 0);
    const elsewhere = [a, b, c].find((each) => each.id !== second.receiver_device_id)!;
    await receive(elsewhere, '+79031234567', `Gateway check ${second.code}`, 0);
    await receive(a, '+79031234567', 'Gateway check ZZZZ2345', 0);

    const probes = new Map((await probesOf(0)).map((probe) => [probe.id, probe]));
    expect(probes.get(first.id)).to.include({ result: 'passed' });
    expect(probes.get(second.id)).to.include({ result: 'failed', failure: 'received_elsewhere' });
    const stored = await incomingRowsOf(fx, fx.tenant.accountId);
    expect(stored.map((row: Row) => row.message)).to.deep.equal(['Gateway check ZZZZ2345']);
  });

  it('when a receiver never reports the code, then its probe fails at the deadline; the others passed', async () => {
    expect((await fx.tenant.api.patch('/account/canary', { timeout_seconds: 10 })).status).to.equal(200);
    const a = await phone('A', [0, 1]);
    const b = await phone('B', [0]);
    const round = await run();
    const lostOne = round.probes[0];
    await carry([a, b], round.probes, (probe) => probe.id === lostOne.id);
    clock.advance(9_000);
    await fx.gateway.services.canary.endOverdue();
    expect((await probesOf(0)).find((probe) => probe.id === lostOne.id)).to.include({ result: 'pending' });

    clock.advance(1_000);
    expect(await fx.gateway.services.canary.endOverdue()).to.equal(1);
    for (const probe of await probesOf(0)) {
      if (probe.id === lostOne.id) expect(probe).to.include({ result: 'failed', failure: 'timeout' });
      else expect(probe).to.include({ result: 'passed' });
    }
  });

  it('when the sender fails the canary SMS, then its probe fails at once, and the SMS is not tried on another SIM or phone', async () => {
    const a = await phone('A', [0, 1]);
    const b = await phone('B', [0]);
    const round = await run();
    const failing = round.probes.find((probe) => probe.sender_device_id === a.id)!;
    const task = await taskOf(a, failing.sms_id);
    await report(a, task.sms_id, 'processing');
    await report(a, task.sms_id, 'failed_send', { error: 'radio off', error_code: 'radio_off' });

    const probe = (await probesOf(0)).find((each) => each.id === failing.id);
    expect(probe).to.include({ result: 'failed' });
    expect(probe.failure).to.match(/^send_failed/);
    expect(await smsRow(fx, failing.sms_id)).to.include({ status: 'failed_send', device_id: a.id });
    await fx.gateway.services.dispatcher.claimFor(a.id);
    await fx.gateway.services.dispatcher.claimFor(b.id);
    const tasksFor = (each: Phone) => each.mqtt.messages.filter((message) => message.topic === topic(each.id, 'tasks') && JSON.parse(message.payload).sms_id === failing.sms_id);
    expect(tasksFor(a)).to.have.length(1);
    expect(tasksFor(b)).to.have.length(0);
  });

  it('when rounds follow one another, then every SIM sends to a different partner each time until it has reached every other', async () => {
    const a = await phone('A', [0, 1]);
    const b = await phone('B', [0, 1]);
    const partners = new Map<string, Set<string>>();
    for (let r = 0; r < 3; r++) {
      const round = await run();
      expect(round.round).to.equal(r);
      await carry([a, b], round.probes);
      for (const probe of await probesOf(r)) {
        expect(probe.result).to.equal('passed');
        const sender = `${probe.sender_device_id}/${probe.sender_sim}`;
        partners.set(sender, (partners.get(sender) ?? new Set()).add(`${probe.receiver_device_id}/${probe.receiver_sim}`));
      }
    }
    expect(partners.size).to.equal(4);
    for (const [sender, reached] of partners) {
      expect(reached.size, sender).to.equal(3);
      expect(reached.has(sender)).to.equal(false);
    }
  });

  it('when one SIM\'s canaries never arrive at two receivers that others reach, then the health judge, asked as its probes end, degrades it for sending', async () => {
    expect((await fx.tenant.api.patch('/account/canary', { timeout_seconds: 10 })).status).to.equal(200);
    const a = await phone('A', [0, 1]);
    const b = await phone('B', [0, 1]);
    const broken = (probe: any) => probe.sender_device_id === a.id && probe.sender_sim_slot === 0;
    const degraded = () => simHealthOf(fx, a.id, 0);
    for (let r = 0; r < 2; r++) {
      const round = await run();
      await carry([a, b], round.probes, broken);
      clock.advance(10_000);
      await fx.gateway.services.canary.endOverdue();
      if (r === 0) expect((await degraded())?.degraded_fault ?? null, 'one receiver missed is not enough').to.equal(null);
    }
    expect(await degraded()).to.include({ degraded_fault: 'send' });
    const others = await degradedSimsOf(fx, [a.id, b.id]);
    expect(others).to.have.length(1);
  });

  it('when rounds are on and one is due, then the periodic run starts it once, and not again before the next interval', async () => {
    await phone('A', [0, 1]);
    expect((await fx.tenant.api.patch('/account/canary', { enabled: true, interval_minutes: 1 })).status).to.equal(200);
    const canary = fx.gateway.services.canary;
    expect(await canary.runDue()).to.equal(0);
    clock.advance(60_000);
    const [first, second] = await Promise.all([canary.runDue(), canary.runDue()]);
    expect(first + second).to.equal(1);
    expect(await canary.runDue()).to.equal(0);
    const settings = (await fx.tenant.api.get('/account/canary')).body;
    expect(settings).to.include({ rounds_run: 1, last_round_at: new Date(clock.now()).toISOString(), next_round_at: new Date(clock.now() + 60_000).toISOString() });
    expect(await probesOf(0)).to.have.length(2);
  });
});
