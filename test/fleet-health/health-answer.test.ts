// GET /devices/{id}/health: the device's and each SIM's state with the reasons behind it, the SIM's
// send and delivery figures over the last 24 hours (canary SMS not counted), when it last sent and
// received, its radio, and its canary results. A real MQTT phone sends, fails and receives; the
// figures are what it reported.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { useGateway } from '../support/use-gateway.ts';
import { topic } from '../support/mqtt.ts';
import { UNPACED, type TaskPhone } from '../support/task-phone.ts';
import { updateSms } from '../support/test-data.ts';

const HEALTH_KEYS = ['device_id', 'state', 'reasons', 'radio', 'sims', 'canary', 'window_hours'];
const SIM_KEYS = [
  'sim_slot', 'phone_number', 'state', 'fault', 'degraded_since', 'reasons', 'sent', 'failed_send', 'delivered', 'undelivered',
  'send_ratio', 'delivery_ratio', 'last_sent_at', 'last_received_at',
];
const SIM_0 = '+79165550001';
const SIMS = [
  { index: 0, name_operator: 'MTS', phone_number: SIM_0 },
  { index: 1, name_operator: 'Beeline' },
];

describe('fleet health: a device\'s health', () => {
  // The breakers stay out of the way: the figures are the subject here, not the pauses.
  const fx = useGateway({ config: { pauseAfterFailures: 1000, simPauseAfterFailures: 1000 } });
  let phone: TaskPhone;

  beforeEach(async () => {
    phone = await fx.taskPhone({ ...UNPACED, max_send_attempts: 1 });
    await heartbeat({});
  });

  const heartbeat = (extra: object) =>
    phone.client.publishAsync(topic(phone.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: SIMS, ...extra }), { qos: 2 });
  const health = async (deviceId = phone.id) => {
    const reply = await fx.tenant.api.get(`/devices/${deviceId}/health`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(reply.body).to.have.all.keys(HEALTH_KEYS);
    for (const sim of reply.body.sims) expect(sim).to.have.all.keys(SIM_KEYS);
    for (const reason of reply.body.reasons) expect(reason).to.have.all.keys(['code', 'detail', 'sim_slot']);
    return reply.body;
  };
  const codes = (reasons: { code: string }[]) => reasons.map((reason) => reason.code);

  /** Queues `count` SMS for the phone and answers their ids once it holds them. */
  async function queued(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: `figures ${i}`, device_id: phone.id });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      ids.push(created.body.id);
    }
    await eventuallyHeld(ids);
    return ids;
  }
  async function eventuallyHeld(ids: string[]) {
    const deadline = Date.now() + 5_000;
    while (!ids.every((id) => phone.tasks.some((task) => task.sms_id === id))) {
      if (Date.now() > deadline) throw new Error('the phone was not given every SMS');
      await phone.settle();
    }
  }

  it('when the phone sent nothing and received nothing, then the device and its SIMs are unknown, with their numbers', async () => {
    const shown = await health();
    expect(shown).to.deep.include({ device_id: phone.id, state: 'unknown', reasons: [], radio: null, canary: [], window_hours: 24 });
    expect(shown.sims).to.deep.equal([
      { sim_slot: 0, phone_number: SIM_0, state: 'unknown', fault: null, degraded_since: null, reasons: [], sent: 0, failed_send: 0, delivered: 0, undelivered: 0, send_ratio: null, delivery_ratio: null, last_sent_at: null, last_received_at: null },
      { sim_slot: 1, phone_number: null, state: 'unknown', fault: null, degraded_since: null, reasons: [], sent: 0, failed_send: 0, delivered: 0, undelivered: 0, send_ratio: null, delivery_ratio: null, last_sent_at: null, last_received_at: null },
    ]);
  });

  it('when a SIM sent under half of 10 sends, then it is degraded by low_send_ratio; its delivery figures and last send and receipt are shown; canary SMS are not counted', async () => {
    const ids = await queued(12);
    const [sent, failed, canary] = [ids.slice(0, 4), ids.slice(4, 10), ids.slice(10)];
    for (const id of [...sent, ...canary]) await phone.reportWith(id, 'sent', { sim_slot: 0 });
    for (const id of failed) await phone.reportWith(id, 'failed_send', { sim_slot: 0, error: 'no service', error_code: 'no_service' });
    await phone.reportWith(sent[0]!, 'delivered', { sim_slot: 0 });
    await phone.reportWith(sent[1]!, 'delivered', { sim_slot: 0 });
    await phone.reportWith(sent[2]!, 'undelivered', { sim_slot: 0 });
    // Two of them were the fleet's own test SMS: they count for nothing here.
    for (const id of canary) await updateSms(fx, id, { kind: 'canary' });
    const receivedAt = new Date(Date.now() - 60_000).toISOString();
    await phone.client.publishAsync(
      topic(phone.id, 'incoming'),
      JSON.stringify({ id: randomUUID(), phone: '+79005550101', message: 'hello', received_at: receivedAt, sim_slot: 0 }),
      { qos: 2 },
    );

    const shown = await health();
    expect(shown.state).to.equal('degraded');
    const [sim0, sim1] = shown.sims;
    expect(sim0).to.include({ sim_slot: 0, state: 'degraded', fault: null, sent: 4, failed_send: 6, delivered: 2, undelivered: 1, send_ratio: 0.4, delivery_ratio: 0.667 });
    expect(sim0.last_received_at).to.equal(receivedAt);
    expect(Date.parse(sim0.last_sent_at)).to.be.closeTo(Date.now(), 60_000);
    expect(sim0.reasons).to.deep.equal([
      { code: 'low_send_ratio', detail: '4 of 10 sends in the last 24 h succeeded (40%), under 50%', sim_slot: 0 },
    ]);
    expect(shown.reasons).to.deep.equal(sim0.reasons);
    expect(sim1).to.include({ state: 'unknown', sent: 0, failed_send: 0 });
  });

  it('when a SIM failed 3 sends and sent none, then it is degraded by no_successful_send, and another SIM that sent is healthy', async () => {
    const ids = await queued(5);
    for (const id of ids.slice(0, 3)) await phone.reportWith(id, 'failed_send', { sim_slot: 1, error: 'no service', error_code: 'no_service' });
    for (const id of ids.slice(3)) await phone.reportWith(id, 'sent', { sim_slot: 0 });
    const shown = await health();
    expect(shown.state).to.equal('degraded');
    expect(shown.sims[0]).to.include({ state: 'healthy', sent: 2, send_ratio: 1 });
    expect(shown.sims[1]).to.include({ state: 'degraded', failed_send: 3, send_ratio: 0 });
    expect(codes(shown.sims[1].reasons)).to.deep.equal(['no_successful_send']);
  });

  it('when the radio says it cannot send, then the device is degraded with radio_cannot_send for the whole device', async () => {
    await heartbeat({ radio: { can_send: false, problem: 'no_sim', detail: 'SIM absent' } });
    const shown = await health();
    expect(shown.state).to.equal('degraded');
    expect(shown.radio).to.deep.equal({ can_send: false, problem: 'no_sim', detail: 'SIM absent' });
    expect(shown.reasons).to.deep.equal([{ code: 'radio_cannot_send', detail: 'its agent says the radio cannot send (no_sim: SIM absent)', sim_slot: null }]);
    await heartbeat({ radio: { can_send: true } });
    expect((await health()).state).to.equal('unknown');
  });

  it('when the SMS are another device\'s, or older than the window, then they are not this device\'s figures', async () => {
    const ids = await queued(2);
    for (const id of ids) await phone.reportWith(id, 'sent', { sim_slot: 0 });
    await updateSms(fx, ids[0]!, { created_at: new Date(Date.now() - 25 * 3_600_000) });
    expect((await health()).sims[0]).to.include({ sent: 1 });
    const other = (await fx.registerDevice('other')).device.id;
    expect((await health(other)).sims).to.deep.equal([]);
  });
});
