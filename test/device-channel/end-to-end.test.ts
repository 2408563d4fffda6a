// The whole path over real TCP: HTTP POST -> task at a simulated device -> its reports ->
// GET /api/ext/v1/sms/{id} shows delivered, with the history in order.
import { expect } from 'chai';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { useGateway } from '../support/use-gateway.ts';
import { nextEvent } from '../support/devices.ts';

describe('device channel: end to end', () => {
  const fx = useGateway();

  async function device(options = {}) {
    const simulated = await fx.connectDevice(options);
    return simulated;
  }

  describe('when an SMS is created for an online device', () => {
    it('then the task arrives, the reports apply, and GET shows delivered with the history in order', async () => {
      const phone = await device();
      const delivered = nextEvent(phone, 'report', (_id, status) => status === 'delivered');
      const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'end to end' });
      expect(created.status).to.equal(201);
      // The SMS joins the pool; the online phone claims it as soon as it is stored.
      expect(created.body.device_id).to.equal(null);

      const [smsId] = await delivered;
      expect(smsId).to.equal(created.body.id);
      const read = await fx.tenant.api.get(`/sms/${smsId}`);
      expect(read.body.status).to.equal('delivered');
      expect(read.body.device_id).to.equal(phone.id);
      expect(read.body.history.map((entry: { internal_status: string }) => entry.internal_status)).to.deep.equal([
        'pending',
        'processing',
        'sent',
        'delivered',
      ]);
      expect(read.body.history.slice(1).every((entry: { source: string }) => entry.source === 'device')).to.equal(true);
      expect(new Date(read.body.updated_at).getTime()).to.equal(new Date(read.body.history[3].at).getTime());
    });

    it('then the task carries the phone, the text and the SIM the device settings chose', async () => {
      const phone = await device({ simCards: [{ index: 1, name_operator: 'Second' }] });
      await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { selected_sim: -1 });
      const task = nextEvent(phone, 'task');
      await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'which SIM?' });
      const [received] = await task;
      expect(received).to.include({ phone: '+79161234567', message: 'which SIM?', sim: 1 });
    });
  });

  describe('when an SMS is created while no device is online', () => {
    it('then it waits unassigned and is delivered when a device connects', async () => {
      const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'waiting' });
      expect(created.body.device_id).to.equal(null);
      const { device: row, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'late phone');
      const { SimulatedDevice } = await import('../../src/simulator/device.ts');
      const late = new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${fx.gateway.mqttPort}`, deviceId: row.id, token });
      fx.track(late);
      const delivered = nextEvent(late, 'report', (id, status) => id === created.body.id && status === 'delivered');
      await late.connect();
      await delivered;
      const read = await fx.tenant.api.get(`/sms/${created.body.id}`);
      expect(read.body).to.include({ status: 'delivered', device_id: row.id });
    });
  });
});
