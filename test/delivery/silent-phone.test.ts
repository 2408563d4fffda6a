// Dispatch follows the presence rule the API shows: a phone heard from within
// DEVICE_OFFLINE_AFTER is online, one silent for longer is not, even while its TCP connection
// stays open (a half-open mobile link under a keepalive of 600 s, which the broker does not time
// out for 15 minutes). Such a phone is offered no pool SMS, takes no no_store SMS, and its
// unacknowledged tasks fail over as if it had disconnected; once it speaks again it claims again.
// The silent phone is a raw MQTT client that sends nothing the test does not write; time is the
// gateway's (ManualClock), so five minutes pass at once.
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { nextDomainEvent } from '../support/devices.ts';
import { nextTask, takeTasks, tasksOf, topic, type RawClient } from '../support/mqtt.ts';

const PHONE = '+79161234567';
/** The broker's longest keepalive: it would close a dead connection only after 900 s. */
const LONG_KEEPALIVE = 600;

describe('delivery: a phone silent past DEVICE_OFFLINE_AFTER', () => {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const fx = useGateway({ clock });

  const offlineAfter = () => fx.gateway.config.deviceOfflineAfterMs;

  /** A phone connected with a long keepalive and subscribed to its tasks; it says nothing more. */
  async function quietPhone(): Promise<{ id: string; raw: RawClient }> {
    const { device, token } = await fx.registerDevice('quiet');
    const raw = await fx.clients.device(device.id, token, { keepalive: LONG_KEEPALIVE });
    await takeTasks(raw, device.id);
    return { id: device.id, raw };
  }

  /** Five and a half minutes without a word from anyone. */
  function silence(): void {
    clock.advance(offlineAfter() + 30_000);
  }

  /**
   * Lets the gateway hand out whatever it would (a sweep waits for claims under way), then makes
   * sure whatever it published to the phone has arrived: the broker answers an UNSUBSCRIBE after
   * the packets it queued before. Neither counts as activity of the phone.
   */
  async function settle(phone: { id: string; raw: RawClient }): Promise<void> {
    await fx.gateway.services.dispatcher.sweep();
    await phone.raw.client.unsubscribeAsync(topic(phone.id, 'settings'));
  }

  async function isOnline(deviceId: string): Promise<boolean> {
    const reply = await fx.tenant.api.get(`/devices/${deviceId}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body.is_online;
  }

  async function send(extra: Record<string, unknown> = {}) {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'are you there', ...extra });
    return created;
  }

  async function sms(id: string) {
    return (await fx.tenant.api.get(`/sms/${id}`)).body;
  }

  describe('when a connected phone has said nothing for longer than DEVICE_OFFLINE_AFTER', () => {
    it('then the API shows it offline though connected, and an SMS for any device waits in the pool instead of going to it', async () => {
      const quiet = await quietPhone();
      expect(await isOnline(quiet.id), 'just connected').to.equal(true);
      silence();
      expect(await isOnline(quiet.id), 'silent').to.equal(false);
      expect(quiet.raw.closed, 'its connection is still open').to.equal(false);

      const created = await send();
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const named = await send({ device_id: quiet.id });
      expect(named.status, JSON.stringify(named.body)).to.equal(201);
      await settle(quiet);
      expect(tasksOf(quiet.raw, quiet.id), 'tasks handed to the silent phone').to.deep.equal([]);
      expect(await sms(created.body.id)).to.include({ status: 'pending', device_id: null });
      const device = (await fx.tenant.api.get(`/devices/${quiet.id}`)).body;
      expect(device.queue, 'the SMS named for it waits for it, not handed out').to.include({ in_flight: 0, waiting: 1 });
    });

    it('then a no_store SMS is refused (503 no_device_available), and nothing reaches the phone', async () => {
      const quiet = await quietPhone();
      silence();
      const refused = await send({ no_store: true });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
      expect(refused.body.error.code).to.equal('no_device_available');
      await settle(quiet);
      expect(tasksOf(quiet.raw, quiet.id)).to.deep.equal([]);
    });

    it('then with another phone online, each SMS of the pool goes to that one, none to the silent one', async () => {
      const quiet = await quietPhone();
      silence();
      const awake = await quietPhone();
      const ids: string[] = [];
      // One at a time: with both taken for online, the least busy phone would be asked first, and
      // the silent one would get every other SMS.
      for (let i = 0; i < 4; i++) {
        const created = await send();
        ids.push(created.body.id);
        await nextTask(awake.raw, awake.id, created.body.id);
      }
      await settle(quiet);
      expect(tasksOf(quiet.raw, quiet.id)).to.deep.equal([]);
      for (const id of ids) expect(await sms(id)).to.include({ device_id: awake.id });
    });
  });

  describe('when the silent phone speaks again', () => {
    it('then a heartbeat makes it online, and it claims the SMS that waited in the pool', async () => {
      const quiet = await quietPhone();
      silence();
      const created = await send();
      await settle(quiet);
      expect(await sms(created.body.id)).to.include({ device_id: null });

      await quiet.raw.publish(topic(quiet.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: [] }));
      await nextTask(quiet.raw, quiet.id, created.body.id);
      expect(await isOnline(quiet.id)).to.equal(true);
      expect(await sms(created.body.id)).to.include({ status: 'pending', device_id: quiet.id });
    });

    it('then a bare PINGREQ is enough: it is online and claims again', async () => {
      const quiet = await quietPhone();
      silence();
      const created = await send();
      await settle(quiet);
      expect(tasksOf(quiet.raw, quiet.id)).to.deep.equal([]);

      const back = nextDomainEvent(fx.gateway.services.events, 'device.online', (event) => event.deviceId === quiet.id);
      // PINGREQ is two bytes, 0xC0 0x00 (MQTT 3.1.1, 3.12): written as they are, whatever mqtt.js's own schedule.
      quiet.raw.client.stream.write(Buffer.from([0xc0, 0x00]));
      await back;
      await nextTask(quiet.raw, quiet.id, created.body.id);
      expect(await isOnline(quiet.id)).to.equal(true);
    });
  });

  describe('when a phone holding tasks it has not acknowledged falls silent', () => {
    it('then FAILOVER_AFTER after it went silent they go to a phone that is online, and never back to the silent one', async () => {
      const quiet = await quietPhone();
      const first = (await send()).body.id;
      const second = (await send()).body.id;
      await nextTask(quiet.raw, quiet.id, first);
      await nextTask(quiet.raw, quiet.id, second);

      clock.advance(offlineAfter() + 1_000);
      // One slot: had the silent phone still counted, it would have taken the SMS the other had no room for.
      const awake = await fx.taskPhone({ send_window: 1, limits: { per_minute: null, per_hour: null, per_day: null } });
      await settle(quiet);
      expect(awake.total, 'silent for less than FAILOVER_AFTER: the tasks are still its own').to.equal(0);

      clock.advance(fx.gateway.config.failoverAfterMs);
      await settle(quiet);
      await awake.until(1);
      const [moved] = awake.tasks.map((task) => task.sms_id);
      const left = moved === first ? second : first;
      expect(await sms(moved!)).to.include({ status: 'pending', device_id: awake.id });
      expect(await sms(left), 'waits in the pool for room on an online phone').to.include({ status: 'pending', device_id: null });
      expect(tasksOf(quiet.raw, quiet.id).map((task) => task.sms_id), 'the silent phone was handed nothing again').to.have.members([first, second]);
      expect(tasksOf(quiet.raw, quiet.id)).to.have.length(2);
      expect(await isOnline(quiet.id)).to.equal(false);

      await awake.report(moved!, 'processing');
      await awake.report(moved!, 'sent');
      await awake.until(2);
      expect(awake.tasks.map((task) => task.sms_id)).to.have.members([first, second]);
      expect(await sms(left)).to.include({ device_id: awake.id });
    });
  });
});
