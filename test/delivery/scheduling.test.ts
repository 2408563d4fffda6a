// send_at, valid_until / ttl and priority: when an SMS may go, until when, and in which order.
// Time is the test's (ManualClock).
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { TaskPhone, UNPACED } from '../support/task-phone.ts';
import { expectError } from '../support/expectations.ts';

describe('delivery: scheduling, expiry and priority', () => {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const fx = useGateway({ clock });

  async function phone(settings: Record<string, unknown> = UNPACED): Promise<TaskPhone> {
    const connected = await fx.taskPhone(settings);
    return connected;
  }

  async function send(extra: Record<string, unknown> = {}) {
    const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'scheduled', ...extra });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body;
  }

  const iso = (ms: number) => new Date(ms).toISOString();

  describe('when an SMS has send_at in the future', () => {
    it('then no phone gets it before that time, and one gets it once the time has come', async () => {
      const ready = await phone();
      const later = await send({ send_at: iso(clock.now() + 10 * 60_000) });
      expect(later.send_at).to.equal(iso(clock.now() + 10 * 60_000));
      await fx.gateway.services.dispatcher.sweep();
      await ready.settle();
      expect(ready.total).to.equal(0);
      clock.advance(10 * 60_000);
      // Ten minutes passed at once: the phone speaks, as a real one would have meanwhile.
      await ready.heartbeat();
      await fx.gateway.services.dispatcher.sweep();
      await ready.until(1);
      expect(ready.tasks[0]!.sms_id).to.equal(later.id);
    });
  });

  describe('when an SMS is not taken before it expires', () => {
    it('then with ttl it ends as failed_send with reason expired (legacy status 3), and a phone never gets it', async () => {
      const created = await send({ ttl: 60 });
      expect(created.valid_until).to.equal(iso(clock.now() + 60_000));
      clock.advance(61_000);
      await fx.gateway.services.dispatcher.sweep();
      const read = await fx.tenant.api.get(`/sms/${created.id}`);
      expect(read.body).to.include({ status: 'failed_send', reason: 'expired' });
      expect(read.body.history.map((entry: { internal_status: string }) => entry.internal_status)).to.deep.equal(['pending', 'failed_send']);
      const legacy = await fx.tenant.root.post('/sms/get', { id: read.body.id });
      expect(legacy.status).to.equal(200);
      expect(legacy.body.status).to.equal(3);

      const late = await phone();
      await late.settle();
      expect(late.total).to.equal(0);
    });

    it('then with valid_until it expires at that time even when it was handed to a phone that never acknowledged it', async () => {
      const silent = await phone();
      const created = await send({ valid_until: iso(clock.now() + 5 * 60_000) });
      await silent.until(1);
      expect(silent.tasks[0]!.valid_until).to.equal(created.valid_until);
      clock.advance(5 * 60_000);
      await fx.gateway.services.dispatcher.sweep();
      expect((await fx.tenant.api.get(`/sms/${created.id}`)).body).to.include({ status: 'failed_send', reason: 'expired' });
      // A late acknowledgement changes nothing.
      await silent.report(created.id, 'processing');
      expect((await fx.tenant.api.get(`/sms/${created.id}`)).body.status).to.equal('failed_send');
    });

    it('then an acknowledgement that arrives after valid_until, before the sweep ran, does not take it', async () => {
      const slow = await phone();
      const created = await send({ ttl: 60 });
      await slow.until(1);
      clock.advance(60_000);
      await slow.report(created.id, 'processing');
      const read = await fx.tenant.api.get(`/sms/${created.id}`);
      expect(read.body).to.include({ status: 'failed_send', reason: 'expired' });
      expect(read.body.history.map((entry: { internal_status: string }) => entry.internal_status)).to.deep.equal(['pending', 'failed_send']);
    });

    it('then cancelling the expired SMS answers 409 already_final', async () => {
      const created = await send({ ttl: 60 });
      clock.advance(61_000);
      await fx.gateway.services.dispatcher.sweep();
      expectError(await fx.tenant.api.post(`/sms/${created.id}/cancel`), 409, 'already_final');
    });

    it('then an SMS a phone acknowledged before it expired is not expired', async () => {
      const quick = await phone();
      const created = await send({ ttl: 60 });
      await quick.until(1);
      await quick.report(created.id, 'processing');
      clock.advance(61_000);
      await fx.gateway.services.dispatcher.sweep();
      await quick.report(created.id, 'sent');
      expect((await fx.tenant.api.get(`/sms/${created.id}`)).body).to.include({ status: 'sent', reason: null });
    });

    it('then impossible schedules are refused with 400', async () => {
      const now = clock.now();
      expectError(await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'x', valid_until: iso(now - 1000) }), 400, 'validation_failed');
      expectError(await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'x', valid_until: iso(now + 60_000), ttl: 60 }), 400, 'validation_failed');
      expectError(
        await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'x', send_at: iso(now + 120_000), valid_until: iso(now + 60_000) }),
        400,
        'validation_failed',
      );
      expectError(await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'x', ttl: 0 }), 400, 'validation_failed');
      expectError(await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'x', priority: 101 }), 400, 'validation_failed');
      expectError(await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'x', send_at: 'tomorrow' }), 400, 'validation_failed');
    });
  });

  describe('when SMS of different priorities wait', () => {
    it('then a phone takes the highest priority first, and equal priorities oldest first', async () => {
      const low = await send({ priority: -5 });
      clock.advance(1);
      const normal = await send();
      clock.advance(1);
      const urgent = await send({ priority: 50 });
      clock.advance(1);
      const normalLater = await send();
      const one = await phone({ send_window: 1, limits: { per_minute: null, per_hour: null, per_day: null } });
      const order: string[] = [];
      for (let i = 1; i <= 4; i++) {
        await one.until(i);
        const task = one.tasks[one.tasks.length - 1]!;
        order.push(task.sms_id);
        await one.report(task.sms_id, 'processing');
        await one.report(task.sms_id, 'sent');
      }
      expect(order).to.deep.equal([urgent.id, normal.id, normalLater.id, low.id]);
    });
  });
});
