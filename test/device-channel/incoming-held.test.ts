// What a device keeps of what it received while forwarding is off: a heartbeat may say how many
// (incoming_held, 0-100,000), the gateway stores it with the device's other heartbeat data and
// GET /devices/{id} and GET /devices show it; null until reported, and again after a heartbeat
// that leaves it out. A value out of range drops the heartbeat, counted as any malformed one. And
// a device registered through the API forwards what it receives from the start.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { topic, type RawClient } from '../support/mqtt.ts';

const REJECTED = 'device_messages_rejected_total';
const HEARTBEAT = { battery_level: 64, is_charging: true, sim_cards: [] };

describe('device channel: received SMS kept on the phone', () => {
  const fx = useGateway();

  async function connected(): Promise<{ id: string; mqtt: RawClient }> {
    const { device, token } = await fx.registerDevice('keeper');
    return { id: device.id, mqtt: await fx.clients.device(device.id, token) };
  }

  /** QoS 2: applied once the publish completes. */
  const heartbeat = (phone: { id: string; mqtt: RawClient }, body: object) => phone.mqtt.publish(topic(phone.id, 'heartbeat'), JSON.stringify(body));

  describe('when a device is registered with POST /devices', () => {
    it('then it forwards what it receives (forward_incoming_sms true) and says nothing yet of kept SMS (incoming_held null)', async () => {
      const reply = await fx.tenant.api.post('/devices', { name: 'new phone' });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body.device).to.include({ forward_incoming_sms: true, incoming_held: null });
      const shown = await fx.tenant.api.get(`/devices/${reply.body.device.id}`);
      expect(shown.body).to.include({ forward_incoming_sms: true, incoming_held: null });
    });
  });

  describe('when a heartbeat says how many received SMS the phone keeps', () => {
    it('then it is stored and shown by GET /devices/{id} and GET /devices', async () => {
      const phone = await connected();
      await heartbeat(phone, { ...HEARTBEAT, incoming_held: 7 });
      expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body).to.include({ incoming_held: 7, battery_level: 64 });
      const listed = (await fx.tenant.api.get('/devices')).body.data.find((device: { id: string }) => device.id === phone.id);
      expect(listed.incoming_held).to.equal(7);
    });

    it('then the bounds 0 and 100,000 are taken', async () => {
      const phone = await connected();
      await heartbeat(phone, { ...HEARTBEAT, incoming_held: 0 });
      expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body.incoming_held).to.equal(0);
      await heartbeat(phone, { ...HEARTBEAT, incoming_held: 100_000 });
      expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body.incoming_held).to.equal(100_000);
    });

    it('then a later heartbeat that leaves it out shows null again (a phone that no longer says)', async () => {
      const phone = await connected();
      await heartbeat(phone, { ...HEARTBEAT, incoming_held: 3 });
      await heartbeat(phone, HEARTBEAT);
      expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body).to.include({ incoming_held: null, battery_level: 64 });
    });
  });

  for (const bad of [100_001, -1, 2.5, '4', null]) {
    it(`when incoming_held is ${JSON.stringify(bad)}, then the heartbeat is rejected and counted, the stored count stays, the connection stays up`, async () => {
      const phone = await connected();
      await heartbeat(phone, { ...HEARTBEAT, incoming_held: 5 });
      const counted = fx.gateway.services.metrics.value(REJECTED, { reason: 'invalid_payload' });
      await heartbeat(phone, { ...HEARTBEAT, battery_level: 10, incoming_held: bad });
      expect(fx.gateway.services.metrics.value(REJECTED, { reason: 'invalid_payload' })).to.equal(counted + 1);
      expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body).to.include({ incoming_held: 5, battery_level: 64 });
      expect(phone.mqtt.closed).to.equal(false);
    });
  }
});
