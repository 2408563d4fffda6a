// Sticky sender (PATCH /account/delivery {sticky_sender: true}): a recipient keeps getting SMS from
// the SIM (device and slot) it last got one from, so that its replies come back to the same
// number, while that SIM can send; when it is degraded, at a SIM limit, or its phone is offline
// past FAILOVER_AFTER, any phone takes the SMS and the recipient keeps the new SIM. Real HTTP, raw
// MQTT phones over the real broker.
import { expect } from 'chai';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { TaskPhone } from '../support/task-phone.ts';
import { expectError } from '../support/expectations.ts';
import { degradeSim, stickySenderOf } from '../support/test-data.ts';

const UNPACED = { send_window: 20, limits: { per_minute: null, per_hour: null, per_day: null } };
const RECIPIENT = '+79161110001';
const OTHER = '+79161110002';
const FAILOVER_MS = 400;

describe('delivery: sticky sender', () => {
  const fx = useGateway({ config: { failoverAfterMs: FAILOVER_MS } });

  async function phone(slots: number[], settings: Record<string, unknown> = {}): Promise<TaskPhone> {
    const connected = await fx.taskPhone({ ...UNPACED, ...settings });
    const cards = slots.map((index) => ({ index, name_operator: `Operator ${index}` }));
    await connected.client.publishAsync(deviceTopic(connected.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: cards }), { qos: 2 });
    return connected;
  }

  async function send(to: string): Promise<string> {
    const created = await fx.tenant.api.post('/sms', { phone: to, message: 'same number please' });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id;
  }

  const sticky = async (on: boolean) => expect((await fx.tenant.api.patch('/account/delivery', { sticky_sender: on })).body).to.deep.equal({ sticky_sender: on });
  const stickyRow = () => stickySenderOf(fx, fx.tenant.accountId, RECIPIENT);

  it('when the account reads and sets sticky_sender, then it is off by default, set, and a bad body is refused with 400', async () => {
    expect((await fx.tenant.api.get('/account/delivery')).body).to.deep.equal({ sticky_sender: false });
    await sticky(true);
    expect((await fx.tenant.api.get('/account/delivery')).body).to.deep.equal({ sticky_sender: true });
    expectError(await fx.tenant.api.patch('/account/delivery', { sticky_sender: 'yes' }), 400, 'validation_failed');
    expectError(await fx.tenant.api.patch('/account/delivery', { sticky: true }), 400, 'validation_failed');
    expect((await fx.tenant.api.get('/account/delivery')).body).to.deep.equal({ sticky_sender: true });
    // Another account's choice is its own.
    const other = await fx.newTenant();
    expect((await other.api.get('/account/delivery')).body).to.deep.equal({ sticky_sender: false });
  });

  it('when sticky_sender is off, then the least busy phone takes the next SMS to a recipient, whoever sent to it before', async () => {
    const first = await phone([0, 1]);
    await send(RECIPIENT);
    await first.until(1);
    const second = await phone([0]);
    const next = await send(RECIPIENT);
    await second.until(1);
    expect(second.tasks[0]!.sms_id).to.equal(next);
  });

  it('when sticky_sender is on, then every SMS to a recipient goes from the SIM it first got one from, though another phone is less busy', async () => {
    await sticky(true);
    const holder = await phone([0, 1], { selected_sim: -1 });
    await send(RECIPIENT);
    await holder.until(1);
    const slot = holder.tasks[0]!.sim;
    expect(await stickyRow()).to.deep.include({ device_id: holder.id, sim_slot: slot });

    const idle = await phone([0]);
    // The least busy phone is asked first: it takes the SMS to another recipient, and leaves these.
    const elsewhere = await send(OTHER);
    const again = [await send(RECIPIENT), await send(RECIPIENT), await send(RECIPIENT)];
    await holder.until(4);
    await idle.until(1);
    expect(holder.tasks.slice(1).map((task) => [task.sms_id, task.sim])).to.deep.equal(again.map((id) => [id, slot]));
    expect(idle.tasks.map((task) => task.sms_id)).to.deep.equal([elsewhere]);
  });

  it('when the less busy phone has reported no SIM, then it still leaves the recipient to its SIM', async () => {
    await sticky(true);
    const holder = await phone([0]);
    await send(RECIPIENT);
    await holder.until(1);
    const bare = await phone([]);
    const again = await send(RECIPIENT);
    await holder.until(2);
    expect(holder.tasks[1]!.sms_id).to.equal(again);
    await bare.settle();
    expect(bare.total).to.equal(0);
  });

  it('when the SIM it last got one from is degraded, then another phone takes it, and the recipient keeps the new SIM', async () => {
    await sticky(true);
    const holder = await phone([0]);
    await send(RECIPIENT);
    await holder.until(1);
    const other = await phone([0]);
    await degradeSim(fx, holder.id, 0, 'send');
    const moved = await send(RECIPIENT);
    await other.until(1);
    expect(other.tasks[0]!.sms_id).to.equal(moved);
    expect(await stickyRow()).to.deep.include({ device_id: other.id, sim_slot: 0 });
  });

  it('when the SIM it last got one from is at its per_day, then another phone takes it', async () => {
    await sticky(true);
    const holder = await phone([0], { sim_limits: { '0': { per_day: 1 } } });
    await send(RECIPIENT);
    await holder.until(1);
    const other = await phone([0]);
    const moved = await send(RECIPIENT);
    await other.until(1);
    expect(other.tasks[0]!.sms_id).to.equal(moved);
    expect(holder.total).to.equal(1);
  });

  it('when its phone went offline, then the SMS waits for it until FAILOVER_AFTER, then another phone takes it', async () => {
    await sticky(true);
    const holder = await phone([0]);
    await send(RECIPIENT);
    await holder.until(1);
    await holder.sendAll();
    const other = await phone([0]);
    // The phone is offline from the moment it is killed (the gateway cannot know it sooner), so
    // until FAILOVER_AFTER has passed since then, the SMS must not have gone to the other phone.
    const killedAt = Date.now();
    holder.kill();
    const waited = await send(RECIPIENT);
    await other.settle();
    // Claimed for the other phone now, were the recipient not the offline phone's.
    if (Date.now() - killedAt < FAILOVER_MS) expect(other.total).to.equal(0);
    await other.until(1, 10_000);
    expect(other.tasks[0]!.sms_id).to.equal(waited);
    expect(await stickyRow()).to.deep.include({ device_id: other.id });
  });
});
