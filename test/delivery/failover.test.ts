// Failover and "taken is taken": a task a phone has not acknowledged may go to another phone
// (its phone vanished for FAILOVER_AFTER, was paused by the circuit breaker, may no longer send,
// or was deleted); a task a phone acknowledged (processing) is that phone's for good, until the
// device is deleted (then it ends: test/delivery/device-deleted.test.ts).
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { TaskPhone, UNPACED } from '../support/task-phone.ts';
import { nextDomainEvent } from '../support/devices.ts';

describe('delivery: failover and taken tasks', () => {
  const fx = useGateway({ config: { failoverAfterMs: 300, pauseAfterFailures: 3, pauseForMs: 600_000 } });

  async function phone(settings: Record<string, unknown> = UNPACED): Promise<TaskPhone> {
    const connected = await fx.taskPhone(settings);
    return connected;
  }

  async function send(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'failover', ...extra });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id;
  }

  async function sms(id: string) {
    return (await fx.tenant.api.get(`/sms/${id}`)).body;
  }

  const statuses = (body: { history: { internal_status: string }[] }) => body.history.map((entry) => entry.internal_status);

  async function offline(deviceId: string): Promise<void> {
    await nextDomainEvent(fx.gateway.services.events, 'device.offline', (event) => event.deviceId === deviceId, 60_000);
  }

  describe('when a phone holding unacknowledged tasks vanishes while another phone is online', () => {
    it('then after FAILOVER_AFTER its tasks go to the other phone, still pending', async () => {
      const first = await phone();
      const ids = [await send(), await send(), await send()];
      await first.until(3);
      const second = await phone();
      const gone = offline(first.id);
      first.kill();
      await gone;
      await second.until(3, 10_000);
      expect(second.tasks.map((task) => task.sms_id).sort()).to.deep.equal([...ids].sort());
      for (const id of ids) expect(await sms(id)).to.include({ device_id: second.id, status: 'pending' });
    });
  });

  describe('when a phone acknowledged a task and then vanishes', () => {
    it('then that SMS stays the phone\'s, processing, while its unacknowledged one fails over', async () => {
      const first = await phone();
      const taken = await send();
      const untaken = await send();
      await first.until(2);
      await first.report(taken, 'processing');
      const second = await phone();
      const gone = offline(first.id);
      first.kill();
      await gone;
      await second.until(1, 10_000);
      await fx.gateway.services.dispatcher.sweep();
      await second.settle();
      expect(second.tasks.map((task) => task.sms_id)).to.deep.equal([untaken]);
      const kept = await sms(taken);
      expect(kept.device_id).to.equal(first.id);
      expect(statuses(kept)).to.deep.equal(['pending', 'processing']);
    });
  });

  describe('when can_send_sms turns false on a phone holding a task it acknowledged', () => {
    it('then the acknowledged SMS never goes back to pending, and only the unacknowledged one moves', async () => {
      const first = await phone();
      const taken = await send();
      const untaken = await send();
      await first.until(2);
      await first.report(taken, 'processing');
      const second = await phone();
      expect((await fx.tenant.api.patch(`/devices/${first.id}/settings`, { can_send_sms: false })).status).to.equal(200);
      await second.until(1);
      await second.settle();
      expect(second.tasks.map((task) => task.sms_id)).to.deep.equal([untaken]);

      await first.report(taken, 'sent');
      await first.report(taken, 'delivered');
      const kept = await sms(taken);
      expect(kept).to.include({ device_id: first.id, status: 'delivered' });
      expect(statuses(kept)).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
    });

    it('then an SMS whose client named that phone waits for it, pending, and is revoked on the phone (test/delivery/switched-off.test.ts)', async () => {
      const first = await phone();
      const named = await send({ device_id: first.id });
      await first.until(1);
      await fx.tenant.api.patch(`/devices/${first.id}/settings`, { can_send_sms: false });
      const waiting = await sms(named);
      expect(waiting).to.include({ status: 'pending', reason: null, device_id: first.id });
      expect(statuses(waiting)).to.deep.equal(['pending']);
    });
  });

  describe('when the client named a phone that goes away', () => {
    it('then its SMS waits for that phone, never moves, and goes out when the phone is back', async () => {
      const first = await phone();
      const named = await send({ device_id: first.id });
      const pooled = await send();
      await first.until(2);
      const second = await phone();
      const gone = offline(first.id);
      first.kill();
      await gone;
      // The pool's SMS failing over proves FAILOVER_AFTER has passed and the sweep ran.
      await second.until(1, 10_000);
      await fx.gateway.services.dispatcher.sweep();
      await second.settle();
      expect(second.tasks.map((task) => task.sms_id)).to.deep.equal([pooled]);
      expect(await sms(named)).to.include({ device_id: first.id, status: 'pending' });

      const back = await TaskPhone.reconnect(fx.gateway, first);
      fx.track(back);
      await back.until(1);
      expect(back.tasks.map((task) => task.sms_id)).to.deep.equal([named]);
    });
  });

  describe('when a phone fails several sends in a row (circuit breaker)', () => {
    it('then it is paused, the API says why, its unacknowledged tasks go to another phone and it gets no new ones', async () => {
      const failing = await phone();
      const ids = [await send(), await send(), await send(), await send(), await send()];
      await failing.until(5);
      const healthy = await phone();
      for (const id of ids.slice(0, 3)) {
        await failing.report(id, 'processing');
        await failing.report(id, 'failed_send', 'RESULT_ERROR_NO_SERVICE');
      }
      await healthy.until(2, 10_000);
      expect(healthy.tasks.map((task) => task.sms_id).sort()).to.deep.equal(ids.slice(3).sort());

      const device = await fx.tenant.api.get(`/devices/${failing.id}`);
      expect(device.body.paused_until).to.be.a('string');
      expect(new Date(device.body.paused_until).getTime()).to.be.greaterThan(Date.now());
      expect(device.body.paused_reason).to.contain('3 sends failed in a row').and.contain('RESULT_ERROR_NO_SERVICE');
      expect(device.body.queue.blocked_by).to.equal('paused');
      expect((await sms(ids[0]!)).reason).to.equal('RESULT_ERROR_NO_SERVICE');

      const later = await send();
      await healthy.until(3);
      await failing.settle();
      expect(failing.total).to.equal(5);
      expect(healthy.tasks.map((task) => task.sms_id)).to.include(later);

      // PATCH settings {"paused": false} ends the pause.
      expect((await fx.tenant.api.patch(`/devices/${failing.id}/settings`, { paused: false })).body.paused_until).to.equal(null);
    });

    it('then a successful send in between resets the count', async () => {
      const flaky = await phone();
      const ids = [await send(), await send(), await send(), await send()];
      await flaky.until(4);
      for (const [i, id] of ids.entries()) {
        await flaky.report(id, 'processing');
        await flaky.report(id, i === 2 ? 'sent' : 'failed_send');
      }
      const device = await fx.tenant.api.get(`/devices/${flaky.id}`);
      expect(device.body.paused_until).to.equal(null);
    });
  });

  describe('when a phone is deleted', () => {
    it('then unacknowledged pool tasks move, named ones fail with reason device_deleted, acknowledged ones end failed_send (it can no longer report)', async () => {
      const first = await phone();
      const taken = await send();
      const pooled = await send();
      const named = await send({ device_id: first.id });
      await first.until(3);
      await first.report(taken, 'processing');
      const second = await phone();
      expect((await fx.tenant.api.delete(`/devices/${first.id}`)).status).to.equal(204);
      await second.until(1);
      expect(second.tasks.map((task) => task.sms_id)).to.deep.equal([pooled]);
      expect(await sms(named)).to.include({ status: 'failed_send', reason: 'device_deleted' });
      expect(statuses(await sms(taken))).to.deep.equal(['pending', 'processing', 'failed_send']);
      expect(await sms(taken)).to.include({ reason: 'device_deleted', device_id: first.id });
    });
  });
});
