// Self-healing in dispatch: a SIM the health judge found degraded with fault send is named for no
// new task (the phone's other SIM is); a phone whose every SIM is degraded takes no pool SMS, its
// named SMS wait (queue blocked_by degraded), but the canaries named for it are still handed to
// it, on the SIM they name, and never tried again when they fail. When fleet.health_changed says
// a phone's last SIM degraded, the pool SMS it holds unacknowledged go to other phones (revoked on
// it); on recovery it claims again. Real HTTP, raw MQTT phones over the real broker; the degraded
// rows are written as the health judge writes them.
import { expect } from 'chai';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { TaskPhone } from '../support/task-phone.ts';
import { smsRow, updateSms } from '../support/test-data.ts';
import { eventually } from '../support/eventually.ts';

const PHONE = '+79161234567';
const UNPACED = { send_window: 20, limits: { per_minute: null, per_hour: null, per_day: null } };

describe('delivery: degraded SIMs', () => {
  const fx = useGateway();

  async function phone(slots: number[], settings: Record<string, unknown> = {}): Promise<TaskPhone> {
    const connected = await fx.taskPhone({ ...UNPACED, ...settings });
    const cards = slots.map((index) => ({ index, name_operator: `Operator ${index}` }));
    await connected.client.publishAsync(deviceTopic(connected.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: cards }), { qos: 2 });
    return connected;
  }

  /** Writes what the health judge writes for a degraded SIM, and announces it in the same transaction. */
  async function degrade(device: TaskPhone, slots: number[], announce = false): Promise<void> {
    const { db, events } = fx.gateway.services;
    await db.transaction(async (trx) => {
      for (const slot of slots) {
        await trx.raw(
          `insert into sim_health (device_id, sim_slot, degraded_since, degraded_reason, degraded_fault) values (?, ?, now(), 'canaries did not arrive', 'send')
           on conflict (device_id, sim_slot) do update set degraded_since = excluded.degraded_since, degraded_reason = excluded.degraded_reason, degraded_fault = 'send'`,
          [device.id, slot],
        );
      }
      if (announce) {
        const changes = slots.map((simSlot) => ({ accountId: fx.tenant.accountId, deviceId: device.id, simSlot, state: 'degraded' as const, fault: 'send' as const, reason: 'canaries did not arrive' }));
        await events.written(trx, 'fleet.health_changed', changes);
      }
    });
  }

  async function recover(device: TaskPhone, slots: number[]): Promise<void> {
    const { db, events } = fx.gateway.services;
    await db.transaction(async (trx) => {
      await trx.raw(`update sim_health set degraded_since = null, degraded_reason = null, degraded_fault = null where device_id = ? and sim_slot = any(?::int2[])`, [device.id, slots]);
      const changes = slots.map((simSlot) => ({ accountId: fx.tenant.accountId, deviceId: device.id, simSlot, state: 'healthy' as const, fault: null, reason: 'marked healthy by the owner' }));
      await events.written(trx, 'fleet.health_changed', changes);
    });
  }

  async function send(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'health', ...extra });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id;
  }

  /** A canary of the next round, named for `device` and its SIM: an SMS of kind canary, as the rounds write it. */
  async function canary(device: TaskPhone, simSlot: number): Promise<string> {
    const id = await send({ device_id: device.id, sim_slot: simSlot });
    await updateSms(fx, id, { kind: 'canary', transactional: true });
    return id;
  }

  const queueOf = async (device: TaskPhone) => (await fx.tenant.api.get(`/devices/${device.id}`)).body.queue;

  it('when one SIM of a dual-SIM phone is degraded (send), then every task names the other SIM', async () => {
    const dual = await phone([0, 1], { selected_sim: -1 });
    await degrade(dual, [0]);
    for (let i = 0; i < 6; i++) await send({ device_id: dual.id });
    await dual.settle();
    await dual.until(6);
    expect(dual.tasks.map((task) => task.sim)).to.deep.equal([1, 1, 1, 1, 1, 1]);
    expect((await queueOf(dual)).blocked_by).to.equal(null);
  });

  it('when a send fails on a named phone whose other SIM is degraded, then no retry names the degraded SIM', async () => {
    const dual = await phone([0, 1], { selected_sim: 0, max_send_attempts: 2 });
    await degrade(dual, [1]);
    const id = await send({ device_id: dual.id });
    await dual.settle();
    await dual.until(1);
    await dual.report(id, 'processing');
    await dual.reportWith(id, 'failed_send', { error_code: 'no_service', sim_slot: 0 });
    expect(await smsRow(fx, id)).to.include({ status: 'failed_send', attempt: 1 });
  });

  it('when one SIM is degraded with fault receive, then it is still named', async () => {
    const single = await phone([0], { selected_sim: 0 });
    await fx.gateway.services.db.raw(`insert into sim_health (device_id, sim_slot, degraded_since, degraded_fault) values (?, 0, now(), 'receive')`, [single.id]);
    await send({ device_id: single.id });
    await single.settle();
    await single.until(1);
    expect(single.tasks[0]!.sim).to.equal(0);
  });

  it('when every SIM of a phone is degraded, then pool and no_store SMS go to another phone, SMS named for it wait (blocked_by degraded), and its canary is handed to it on the degraded SIM it names', async () => {
    const sick = await phone([0, 1]);
    await degrade(sick, [0, 1]);
    const well = await phone([0]);

    const pooled = await send();
    await well.until(1);
    expect(well.tasks.map((task) => task.sms_id)).to.deep.equal([pooled]);
    // A no_store SMS is pool work too, whichever phone is less busy.
    const transient = await send({ no_store: true });
    await well.until(2);
    expect(well.tasks[1]!.sms_id).to.equal(transient);

    const named = await send({ device_id: sick.id });
    await sick.settle();
    expect(await queueOf(sick)).to.include({ blocked_by: 'degraded', waiting: 1, in_flight: 0 });
    expect((await smsRow(fx, named))).to.include({ status: 'pending', dispatched_at: null });

    const probe = await canary(sick, 1);
    await fx.gateway.services.dispatcher.claimFor(sick.id);
    await sick.until(1);
    expect(sick.tasks.map((task) => [task.sms_id, task.sim])).to.deep.equal([[probe, 1]]);
    // The named SMS still waits behind the canary.
    await sick.settle();
    expect(sick.total).to.equal(1);
    expect(await queueOf(sick)).to.include({ blocked_by: 'degraded', waiting: 1 });
  });

  it('when a canary fails with a retryable error, then it is not tried again, on this SIM or another', async () => {
    const dual = await phone([0, 1], { max_send_attempts: 3 });
    const probe = await canary(dual, 0);
    await dual.settle();
    await dual.until(1);
    await dual.report(probe, 'processing');
    await dual.reportWith(probe, 'failed_send', { error_code: 'no_service', error: 'no service', sim_slot: 0 });
    const row = await smsRow(fx, probe);
    expect(row).to.include({ status: 'failed_send', attempt: 1 });
    await dual.settle();
    expect(dual.total).to.equal(1);
  });

  it('when fleet.health_changed says every SIM of a phone degraded, then the pool SMS it holds unacknowledged go to another phone and are revoked on it; SMS named for it stay; on recovery it claims again', async () => {
    const sick = await phone([0, 1]);
    const pooled = [await send(), await send()];
    const named = await send({ device_id: sick.id });
    await sick.until(3);
    // One of the pool SMS is acknowledged: taken is taken.
    await sick.report(pooled[0]!, 'processing');
    const well = await phone([0]);
    await well.settle();
    expect(well.total).to.equal(0);

    await degrade(sick, [0, 1], true);
    await well.until(1);
    expect(well.tasks.map((task) => task.sms_id)).to.deep.equal([pooled[1]]);
    expect(await eventually('the revoke of the pool SMS', () => sick.revoked.get(pooled[1]!))).to.equal('device_degraded');
    expect(sick.revoked.has(pooled[0]!)).to.equal(false);
    expect(sick.revoked.has(named)).to.equal(false);
    expect(await smsRow(fx, pooled[0]!)).to.include({ device_id: sick.id, status: 'processing' });
    expect(await smsRow(fx, named)).to.include({ device_id: sick.id });

    // Degraded, it takes nothing new from the pool.
    const meanwhile = await send();
    await well.until(2);
    expect(well.tasks[1]!.sms_id).to.equal(meanwhile);

    await recover(sick, [0, 1]);
    const later = await send({ device_id: sick.id });
    await sick.until(4);
    expect(sick.tasks.map((task) => task.sms_id)).to.include(later);
    expect((await queueOf(sick)).blocked_by).to.equal(null);
  });
});
