// Revoke: a phone must never send an SMS that is no longer its to send. A task taken back
// before the phone acknowledged it (cancelled, expired, or given to another phone while this one
// was away) is revoked: the gateway publishes a revoke for it, and when the phone acknowledges it
// anyway, the revoke arrives before the acknowledgement completes, so a phone that sends only
// after its acknowledgement completed never sends it.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { nextDomainEvent, nextEvent } from '../support/devices.ts';
import { TaskPhone, UNPACED } from '../support/task-phone.ts';

describe('delivery: revoked tasks', () => {
  const fx = useGateway({ config: { failoverAfterMs: 300 } });

  async function phone(): Promise<TaskPhone> {
    return fx.taskPhone(UNPACED);
  }

  async function send(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'revocable', ...extra });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id;
  }

  describe('when a task handed to a phone is cancelled before the phone acknowledged it', () => {
    it('then the phone is told to drop it, and acknowledging it anyway is answered with a revoke first', async () => {
      const holder = await phone();
      const id = await send();
      await holder.until(1);
      expect((await fx.tenant.api.post(`/sms/${id}/cancel`)).status).to.equal(200);
      await holder.settle();
      expect(holder.revoked.get(id)).to.equal('cancelled');

      holder.revoked.clear();
      await holder.report(id, 'processing');
      expect(holder.revoked.get(id), 'the revoke arrived before the acknowledgement completed').to.equal('cancelled');
      expect((await fx.tenant.api.get(`/sms/${id}`)).body).to.include({ status: 'failed_send', reason: 'cancelled' });
    });

    it('then the simulated phone, which acknowledges before it sends, never sends it', async () => {
      const device = await fx.connectDevice({ delays: { processing: 300 } });
      const id = await send();
      await nextEvent(device, 'task');
      const revoked = nextEvent(device, 'revoked');
      expect((await fx.tenant.api.post(`/sms/${id}/cancel`)).status).to.equal(200);
      expect((await revoked)[0]).to.equal(id);
      const later = await send();
      await nextEvent(device, 'report', (smsId, status) => smsId === later && status === 'delivered');
      expect(device.sendCount.get(id) ?? 0).to.equal(0);
    });
  });

  describe('when a phone comes back and acknowledges a task that was given to another phone meanwhile', () => {
    it('then it is told the task was reassigned before its acknowledgement completes, and the SMS stays the other phone\'s', async () => {
      const away = await phone();
      const id = await send();
      await away.until(1);
      const other = await phone();
      const gone = nextDomainEvent(fx.gateway.services.events, 'device.offline', (event) => event.deviceId === away.id, 60_000);
      away.kill();
      await gone;
      await other.until(1, 10_000);

      const back = await TaskPhone.reconnect(fx.gateway, away);
      fx.track(back);
      await back.report(id, 'processing');
      expect(back.revoked.get(id)).to.equal('reassigned');
      await other.report(id, 'processing');
      expect(other.revoked.has(id)).to.equal(false);
      const read = await fx.tenant.api.get(`/sms/${id}`);
      expect(read.body.device_id).to.equal(other.id);
      expect(read.body.history.map((entry: { internal_status: string }) => entry.internal_status)).to.deep.equal(['pending', 'processing']);
    });
  });
});
