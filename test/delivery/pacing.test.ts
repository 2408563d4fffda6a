// Pacing: the fleet's capacity, not the API, sets the pace. A device takes no more tasks than
// its send_window holds in flight, and no more per minute / hour / day than its limits allow,
// whatever the phone does; none inside its quiet hours. Time is the test's (ManualClock).
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { TaskPhone } from '../support/task-phone.ts';
import { LIMIT_GRACE_MS } from '../../src/modules/delivery/repository.ts';

const MINUTE = 60_000;

describe('delivery: pacing', () => {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const fx = useGateway({ clock });
  /** The phones of the running test (the fixture closes them). */
  const phones: TaskPhone[] = [];

  afterEach(() => {
    phones.splice(0);
  });

  async function phone(settings: Record<string, unknown>): Promise<TaskPhone> {
    const connected = await fx.taskPhone(settings);
    phones.push(connected);
    return connected;
  }

  async function queue(count: number, extra: Record<string, unknown> = {}): Promise<string[]> {
    const created = await fx.tenant.api.post('/sms/bulk', {
      messages: Array.from({ length: count }, (_, i) => ({ phone: '+79161234567', message: `paced ${i}`, ...extra })),
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.data.map((sms: { id: string }) => sms.id);
  }

  async function settleAll(): Promise<void> {
    // The clock jumps minutes or hours at once: the phones speak, as real ones would have meanwhile.
    for (const each of phones) await each.heartbeat();
    await fx.gateway.services.dispatcher.sweep();
    for (const each of phones) await each.settle();
  }

  describe('when phones never report back', () => {
    it('then each holds at most its send_window, and the rest of the queue waits unassigned', async () => {
      const first = await phone({ send_window: 3, limits: { per_minute: null, per_hour: null, per_day: null } });
      const second = await phone({ send_window: 3, limits: { per_minute: null, per_hour: null, per_day: null } });
      await queue(20);
      await Promise.all([first.until(3), second.until(3)]);
      await settleAll();
      expect(first.total).to.equal(3);
      expect(second.total).to.equal(3);
      const waiting = await fx.tenant.api.get('/sms?limit=100&status=pending');
      expect(waiting.body.data.filter((sms: { device_id: string | null }) => sms.device_id === null)).to.have.length(14);
      const device = await fx.tenant.api.get(`/devices/${first.id}`);
      expect(device.body.queue).to.include({ in_flight: 3, blocked_by: 'window' });
    });

    it('then a finished task opens one slot, at once', async () => {
      const only = await phone({ send_window: 2, limits: { per_minute: null, per_hour: null, per_day: null } });
      await queue(5);
      await only.until(2);
      await only.report(only.tasks[0]!.sms_id, 'processing');
      await only.settle();
      expect(only.total, 'processing is still in flight').to.equal(2);
      await only.report(only.tasks[0]!.sms_id, 'sent');
      await only.until(3);
      await only.settle();
      expect(only.total).to.equal(3);
    });
  });

  describe('when a phone reports every send at once (it would take all it is given)', () => {
    it('then per_minute holds over a rolling minute, and the next slot opens when the oldest send is a minute (and the grace for delivery delay) old', async () => {
      const fast = await phone({ send_window: 50, limits: { per_minute: 5, per_hour: null, per_day: null } });
      await queue(12);
      await fast.until(5);
      await fast.sendAll();
      await settleAll();
      expect(fast.total, 'in the first minute').to.equal(5);

      clock.advance(30_000);
      await settleAll();
      expect(fast.total, 'half a minute later').to.equal(5);
      const device = await fx.tenant.api.get(`/devices/${fast.id}`);
      expect(device.body.queue).to.include({ sent_last_minute: 5, blocked_by: 'per_minute' });

      clock.advance(30_000);
      await settleAll();
      expect(fast.total, 'exactly a minute after the first sends: within the grace').to.equal(5);
      clock.advance(LIMIT_GRACE_MS);
      await settleAll();
      expect(fast.total, 'a minute and the grace after the first sends').to.equal(10);
      await fast.sendAll();
      clock.advance(MINUTE + LIMIT_GRACE_MS);
      await settleAll();
      expect(fast.total, 'the last two').to.equal(12);
    });

    it('then per_hour holds across many minutes, with no per-minute limit', async () => {
      const fast = await phone({ send_window: 50, limits: { per_minute: null, per_hour: 7, per_day: null } });
      await queue(10);
      await fast.until(7);
      await fast.sendAll();
      for (let minute = 0; minute < 59; minute++) {
        clock.advance(MINUTE);
        await settleAll();
      }
      expect(fast.total, '59 minutes later').to.equal(7);
      clock.advance(MINUTE + LIMIT_GRACE_MS);
      await settleAll();
      expect(fast.total, 'an hour (and the grace) after the first sends').to.equal(10);
    });

    it('then per_day holds, and GET /devices/{id} shows the day\'s sends', async () => {
      const fast = await phone({ send_window: 50, limits: { per_minute: null, per_hour: null, per_day: 4 } });
      await queue(6);
      await fast.until(4);
      await fast.sendAll();
      clock.advance(12 * 60 * MINUTE);
      await settleAll();
      expect(fast.total).to.equal(4);
      const device = await fx.tenant.api.get(`/devices/${fast.id}`);
      expect(device.body.queue).to.include({ sent_last_day: 4, blocked_by: 'per_day' });
      clock.advance(12 * 60 * MINUTE + LIMIT_GRACE_MS);
      await settleAll();
      expect(fast.total).to.equal(6);
    });
  });

  describe('when a device has quiet hours across midnight in a zone east of UTC', () => {
    it('then it sends nothing inside them and resumes when they end, local time', async () => {
      // Asia/Tokyo is UTC+9 all year: 22:00-07:00 local is 13:00-22:00 UTC.
      clock.set(Date.parse('2026-11-22T12:30:00Z')); // 21:30 in Tokyo: outside
      const night = await phone({
        send_window: 50,
        limits: { per_minute: null, per_hour: null, per_day: null },
        quiet_hours: { from: '22:00', to: '07:00', timezone: 'Asia/Tokyo' },
      });
      await queue(1);
      await night.until(1);

      clock.set(Date.parse('2026-11-22T14:00:00Z')); // 23:00 in Tokyo: inside, before midnight
      await queue(1);
      await settleAll();
      expect(night.total).to.equal(1);
      clock.set(Date.parse('2026-11-22T18:00:00Z')); // 03:00 in Tokyo: inside, after midnight
      await settleAll();
      expect(night.total).to.equal(1);
      const device = await fx.tenant.api.get(`/devices/${night.id}`);
      expect(device.body.queue.blocked_by).to.equal('quiet_hours');

      clock.set(Date.parse('2026-11-22T22:00:00Z')); // 07:00 in Tokyo: the quiet hours are over
      await settleAll();
      expect(night.total).to.equal(2);
    });

    it('then a quiet_hours with an unknown time zone or an empty window is refused with 400', async () => {
      const { device } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'p');
      const zone = await fx.tenant.api.patch(`/devices/${device.id}/settings`, { quiet_hours: { from: '22:00', to: '07:00', timezone: 'Mars/Olympus' } });
      expect(zone.status).to.equal(400);
      const empty = await fx.tenant.api.patch(`/devices/${device.id}/settings`, { quiet_hours: { from: '22:00', to: '22:00', timezone: 'UTC' } });
      expect(empty.status).to.equal(400);
      const hour = await fx.tenant.api.patch(`/devices/${device.id}/settings`, { quiet_hours: { from: '24:00', to: '07:00', timezone: 'UTC' } });
      expect(hour.status).to.equal(400);
    });
  });

  describe('when pacing settings are changed', () => {
    it('then GET shows them, and out-of-range values are refused', async () => {
      const { device } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'p');
      const patched = await fx.tenant.api.patch(`/devices/${device.id}/settings`, { send_window: 2, limits: { per_minute: 10 } });
      expect(patched.status).to.equal(200);
      expect(patched.body).to.deep.include({ send_window: 2, limits: { per_minute: 10, per_hour: 300, per_day: 2000 }, quiet_hours: null });
      for (const bad of [{ send_window: 0 }, { send_window: 51 }, { limits: { per_minute: 0 } }, { limits: { per_week: 5 } }]) {
        expect((await fx.tenant.api.patch(`/devices/${device.id}/settings`, bad)).status, JSON.stringify(bad)).to.equal(400);
      }
    });
  });
});
