// An SMS sent with the legacy POST /sms/send travels to a simulated device, and POST /sms/get
// shows status 4 (delivered) after delivery.
import { expect } from 'chai';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { useGateway } from '../support/use-gateway.ts';
import { nextEvent } from '../support/devices.ts';

describe('legacy API: end to end', () => {
  const fx = useGateway({ tenant: 'once' });
  let phone: SimulatedDevice;

  before(async () => {
    phone = await fx.connectDevice();
  });

  describe('when an SMS is sent with /sms/send to a connected device', () => {
    it('then the device delivers it and /sms/get shows status 4, "delivered"', async () => {
      const delivered = nextEvent(phone, 'report', (_id, status) => status === 'delivered');
      const sent = await fx.tenant.root.post('/sms/send', { message: 'legacy hello', phone_number: '+79161234567' });
      expect(sent.status).to.equal(200);
      expect(sent.body.id).to.match(/^[0-9a-f]{24}$/);
      await delivered;

      const read = await fx.tenant.root.post('/sms/get', { id: sent.body.id });
      expect(read.status).to.equal(200);
      expect(read.body).to.deep.include({ id: sent.body.id, status: 4, message_status: 'delivered', device_id: '', callback_id: '', to_sim: null });
    });

    it('then naming the device by its object id sends it through that device and shows its id', async () => {
      const device = await fx.gateway.services.devices.get(fx.tenant.accountId, phone.id);
      const delivered = nextEvent(phone, 'report', (_id, status) => status === 'delivered');
      const sent = await fx.tenant.root.post('/sms/send', {
        message: 'named',
        phone_number: '+79161234567',
        device_id: device.object_id,
        to_sim: 0,
      });
      expect(sent.status).to.equal(200);
      await delivered;
      const read = await fx.tenant.root.post('/sms/get', { id: sent.body.id });
      expect(read.body).to.deep.include({ status: 4, device_id: device.object_id, to_sim: 0 });
    });
  });
});
