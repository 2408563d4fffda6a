// Revoke: a phone must never send an SMS that is no longer its to send. A task taken back
// before the phone acknowledged it (cancelled, expired, or given to another phone while this one
// was away) is revoked: the gateway publishes a revoke for it, and when the phone acknowledges it
// anyway, the revoke arrives before the acknowledgement completes, so a phone that sends only
// after its acknowledgement completed never sends it.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { connectDevice, nextEvent } from '../support/devices.ts';
import { TaskPhone, UNPACED } from '../support/task-phone.ts';

describe('delivery: revoked tasks', () => {
  let gateway: Gateway;
  let tenant: Tenant;
  const phones: TaskPhone[] = [];
  const simulated: SimulatedDevice[] = [];

  before(async () => {
    gateway = await startGateway({ failoverAfterMs: 300 });
  });
  after(async () => {
    await gateway.stop();
  });
  beforeEach(async () => {
    tenant = await createTenant(gateway);
  });
  afterEach(async () => {
    await Promise.all([...phones.splice(0).map((phone) => phone.stop().catch(() => {})), ...simulated.splice(0).map((device) => device.stop())]);
  });

  async function phone(): Promise<TaskPhone> {
    const connected = await TaskPhone.connect(gateway, tenant, UNPACED);
    phones.push(connected);
    return connected;
  }

  async function send(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await tenant.api.post('/sms', { phone: '+79161234567', message: 'revocable', ...extra });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id;
  }

  describe('when a task handed to a phone is cancelled before the phone acknowledged it', () => {
    it('then the phone is told to drop it, and acknowledging it anyway is answered with a revoke first', async () => {
      const holder = await phone();
      const id = await send();
      await holder.until(1);
      expect((await tenant.api.post(`/sms/${id}/cancel`)).status).to.equal(200);
      await holder.settle();
      expect(holder.revoked.get(id)).to.equal('cancelled');

      holder.revoked.clear();
      await holder.report(id, 'processing');
      expect(holder.revoked.get(id), 'the revoke arrived before the acknowledgement completed').to.equal('cancelled');
      expect((await tenant.api.get(`/sms/${id}`)).body).to.include({ status: 'failed_send', reason: 'cancelled' });
    });

    it('then the simulated phone, which acknowledges before it sends, never sends it', async () => {
      const device = await connectDevice(gateway, tenant, { delays: { processing: 300 } });
      simulated.push(device);
      const id = await send();
      await nextEvent(device, 'task');
      const revoked = nextEvent(device, 'revoked');
      expect((await tenant.api.post(`/sms/${id}/cancel`)).status).to.equal(200);
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
      const gone = new Promise<void>((resolve) => {
        const listener = (deviceId: string) => {
          if (deviceId !== away.id) return;
          gateway.services.presence.off('offline', listener);
          resolve();
        };
        gateway.services.presence.on('offline', listener);
      });
      away.kill();
      await gone;
      await other.until(1, 10_000);

      const back = await TaskPhone.reconnect(gateway, away);
      phones.push(back);
      await back.report(id, 'processing');
      expect(back.revoked.get(id)).to.equal('reassigned');
      await other.report(id, 'processing');
      expect(other.revoked.has(id)).to.equal(false);
      const read = await tenant.api.get(`/sms/${id}`);
      expect(read.body.device_id).to.equal(other.id);
      expect(read.body.history.map((entry: { internal_status: string }) => entry.internal_status)).to.deep.equal(['pending', 'processing']);
    });
  });
});
