// Limits carriers put on one SIM (device settings sim_limits): per_day (rolling 24 hours), per_month
// and recipients_per_month (calendar month, UTC). A SIM at a limit is not named (the phone's other
// SIM is); a phone whose every SIM is at a limit takes nothing more, and its queue says which
// limit holds; a recipient already counted this month does not count again. Real HTTP, raw MQTT
// phones over the real broker.
import { expect } from 'chai';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { TaskPhone } from '../support/task-phone.ts';
import { simMonthUsageCount, smsRow } from '../support/test-data.ts';
import { expectError } from '../support/expectations.ts';
import { simRoom } from '../../src/modules/delivery/sim-caps.ts';

const UNPACED = { send_window: 20, limits: { per_minute: null, per_hour: null, per_day: null } };
const NONE = { per_day: null, per_month: null, recipients_per_month: null };

describe('delivery: SIM limits', () => {
  const fx = useGateway();

  async function phone(slots: number[], settings: Record<string, unknown> = {}): Promise<TaskPhone> {
    const connected = await fx.taskPhone({ ...UNPACED, ...settings });
    const cards = slots.map((index) => ({ index, name_operator: `Operator ${index}` }));
    await connected.client.publishAsync(deviceTopic(connected.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: cards }), { qos: 2 });
    return connected;
  }

  async function send(body: Record<string, unknown>): Promise<string> {
    const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'capped', ...body });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id;
  }

  const settings = (id: string, body: object) => fx.tenant.api.patch(`/devices/${id}/settings`, body);
  const queueOf = async (device: TaskPhone) => (await fx.tenant.api.get(`/devices/${device.id}`)).body.queue;

  describe('the setting', () => {
    it('when sim_limits are set, then GET /devices/{id} shows each slot with every limit, a slot sent again replaces its limits, and null removes it', async () => {
      const { device } = await fx.registerDevice('limits');
      expect((await fx.tenant.api.get(`/devices/${device.id}`)).body.sim_limits).to.deep.equal({});
      const set = await settings(device.id, { sim_limits: { '0': { per_day: 100, per_month: 3000, recipients_per_month: 250 }, '1': { per_month: 50 } } });
      expect(set.status, JSON.stringify(set.body)).to.equal(200);
      expect(set.body.sim_limits).to.deep.equal({ '0': { per_day: 100, per_month: 3000, recipients_per_month: 250 }, '1': { ...NONE, per_month: 50 } });

      const changed = await settings(device.id, { sim_limits: { '1': { per_day: 7, per_month: null }, '2': null } });
      expect(changed.body.sim_limits).to.deep.equal({ '0': { per_day: 100, per_month: 3000, recipients_per_month: 250 }, '1': { ...NONE, per_day: 7 } });
      const removed = await settings(device.id, { sim_limits: { '0': null, '1': { per_day: null } } });
      expect(removed.body.sim_limits).to.deep.equal({});
      expect((await fx.tenant.api.get(`/devices/${device.id}`)).body.sim_limits).to.deep.equal({});
    });

    for (const [what, bad] of [
      ['a limit of 0', { '0': { per_day: 0 } }],
      ['a limit above 1,000,000', { '0': { per_month: 1_000_001 } }],
      ['a fraction', { '0': { per_day: 1.5 } }],
      ['slot 8', { '8': { per_day: 1 } }],
      ['an unknown limit', { '0': { per_week: 1 } }],
      ['a slot that is a number', { '0': 5 }],
    ] as const) {
      it(`when sim_limits has ${what}, then it is refused with 400 and nothing changes`, async () => {
        const { device } = await fx.registerDevice('bad limits');
        const refused = await settings(device.id, { sim_limits: bad });
        expectError(refused, 400, 'validation_failed');
        expect((await fx.tenant.api.get(`/devices/${device.id}`)).body.sim_limits).to.deep.equal({});
      });
    }
  });

  it('when a SIM reaches its per_day, then the next tasks name the other SIM', async () => {
    const dual = await phone([0, 1], { selected_sim: 0, sim_limits: { '0': { per_day: 2 } } });
    for (let i = 0; i < 5; i++) await send({ device_id: dual.id });
    await dual.settle();
    await dual.until(5);
    expect(dual.tasks.map((task) => task.sim)).to.deep.equal([0, 0, 1, 1, 1]);
    expect((await queueOf(dual)).blocked_by).to.equal(null);
  });

  it('when every SIM is at its per_day, then the phone takes nothing more, SMS named for it wait, and the queue says sim_per_day; a pool SMS goes to another phone', async () => {
    const capped = await phone([0, 1], { sim_limits: { '0': { per_day: 1 }, '1': { per_day: 2 } } });
    const named = [];
    for (let i = 0; i < 4; i++) named.push(await send({ device_id: capped.id }));
    await capped.settle();
    await capped.until(3);
    expect(capped.tasks.map((task) => task.sim).sort()).to.deep.equal([0, 1, 1]);
    expect(await queueOf(capped)).to.include({ blocked_by: 'sim_per_day', waiting: 1, in_flight: 3 });
    expect(await smsRow(fx, named[3]!)).to.include({ status: 'pending', dispatched_at: null });

    const other = await phone([0]);
    const pooled = await send({});
    await other.until(1);
    expect(other.tasks[0]!.sms_id).to.equal(pooled);
    await capped.settle();
    expect(capped.total).to.equal(3);
  });

  it('when an SMS names a SIM at its limit, then it waits while SMS for the other SIM go', async () => {
    const dual = await phone([0, 1], { sim_limits: { '0': { per_month: 1 } } });
    const first = await send({ device_id: dual.id, sim_slot: 0 });
    const second = await send({ device_id: dual.id, sim_slot: 0 });
    const third = await send({ device_id: dual.id, sim_slot: 1 });
    await dual.settle();
    await dual.until(2);
    await dual.settle();
    expect(dual.tasks.map((task) => [task.sms_id, task.sim])).to.deep.equal([[first, 0], [third, 1]]);
    expect(await smsRow(fx, second)).to.include({ status: 'pending', dispatched_at: null });
  });

  it('when every SIM is at its per_month, then the queue says sim_per_month', async () => {
    const single = await phone([0], { sim_limits: { '0': { per_month: 2, per_day: 10 } } });
    for (let i = 0; i < 3; i++) await send({ device_id: single.id });
    await single.settle();
    await single.until(2);
    await single.settle();
    expect(single.total).to.equal(2);
    expect(await queueOf(single)).to.include({ blocked_by: 'sim_per_month', waiting: 1 });
  });

  it('when a SIM is at its recipients_per_month, then it still sends to recipients it sent to this month, and a new one waits (sim_recipients_per_month)', async () => {
    const single = await phone([0], { sim_limits: { '0': { recipients_per_month: 2 } } });
    const to = async (phoneNumber: string) => send({ device_id: single.id, phone: phoneNumber });
    const first = await to('+79160000001');
    const second = await to('+79160000002');
    const third = await to('+79160000003');
    const again = await to('+79160000001');
    await single.settle();
    await single.until(3);
    await single.settle();
    expect(single.tasks.map((task) => task.sms_id)).to.deep.equal([first, second, again]);
    expect(await smsRow(fx, third)).to.include({ status: 'pending', dispatched_at: null });
    expect(await queueOf(single)).to.include({ blocked_by: 'sim_recipients_per_month', waiting: 1 });

    const later = await to('+79160000002');
    await single.settle();
    await single.until(4);
    expect(single.tasks[3]!.sms_id).to.equal(later);
    // Lifting the limit lets the new recipient through.
    await settings(single.id, { sim_limits: { '0': null } });
    await single.until(5);
    expect(single.tasks[4]!.sms_id).to.equal(third);
  });

  it('when a device has no sim_limits, then its tasks name the SIM as before and nothing is counted per SIM', async () => {
    const plain = await phone([0, 1], { selected_sim: 1 });
    const id = await send({ device_id: plain.id });
    await plain.settle();
    await plain.until(1);
    expect(plain.tasks[0]!.sim).to.equal(1);
    expect(await simMonthUsageCount(fx, plain.id)).to.equal(0);
    expect(await smsRow(fx, id)).to.include({ dispatch_sim_slot: null });
  });

  it('a month is the calendar month in UTC: a SIM at its per_month opens at the first of the next month', () => {
    const now = Date.parse('2026-11-30T23:30:00Z');
    const room = simRoom([0], { '0': { per_month: 5 } }, [{ slot: 0, day: 0, oldestDay: null, monthSent: 5, monthRecipients: 1 }], now);
    expect(room).to.include({ room: 0, blockedBy: 'sim_per_month', retryAt: Date.parse('2026-12-01T00:00:00Z') });
  });
});
