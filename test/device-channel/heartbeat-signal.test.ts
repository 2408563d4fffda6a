// The radio's signal strength a heartbeat may carry (signal_percent, 0-100): stored with the
// device's other heartbeat data and shown by GET /devices/{id} and GET /devices; null until
// reported, and again after a heartbeat that leaves it out. A value out of range drops the
// heartbeat, counted and logged as any malformed heartbeat (test/device-channel/bad-input.test.ts).
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { topic, type RawClient } from '../support/mqtt.ts';
import { deviceRow } from '../support/test-data.ts';

const REJECTED = 'device_messages_rejected_total';
const HEARTBEAT = { battery_level: 64, is_charging: true, sim_cards: [] };

describe('device channel: signal strength in heartbeats', () => {
  const fx = useGateway();

  async function connected(): Promise<{ id: string; mqtt: RawClient }> {
    const { device, token } = await fx.registerDevice('radio');
    return { id: device.id, mqtt: await fx.clients.device(device.id, token) };
  }

  /** QoS 2: applied once the publish completes. */
  const heartbeat = (phone: { id: string; mqtt: RawClient }, body: object) => phone.mqtt.publish(topic(phone.id, 'heartbeat'), JSON.stringify(body));

  it('when a device has sent no heartbeat, then signal_percent is null', async () => {
    const { id } = await connected();
    expect((await fx.tenant.api.get(`/devices/${id}`)).body.signal_percent).to.equal(null);
  });

  it('when a heartbeat reports signal_percent, then it is stored and shown by GET /devices/{id} and GET /devices', async () => {
    const phone = await connected();
    await heartbeat(phone, { ...HEARTBEAT, signal_percent: 73 });
    expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body).to.include({ signal_percent: 73, battery_level: 64 });
    const listed = (await fx.tenant.api.get('/devices')).body.data.find((device: { id: string }) => device.id === phone.id);
    expect(listed.signal_percent).to.equal(73);
    expect((await deviceRow(fx, phone.id))!.signal_percent).to.equal(73);
  });

  it('when the bounds 0 and 100 are reported, then they are taken', async () => {
    const phone = await connected();
    await heartbeat(phone, { ...HEARTBEAT, signal_percent: 0 });
    expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body.signal_percent).to.equal(0);
    await heartbeat(phone, { ...HEARTBEAT, signal_percent: 100 });
    expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body.signal_percent).to.equal(100);
  });

  it('when a later heartbeat leaves it out, then it is null again (no stale reading)', async () => {
    const phone = await connected();
    await heartbeat(phone, { ...HEARTBEAT, signal_percent: 40 });
    await heartbeat(phone, HEARTBEAT);
    expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body).to.include({ signal_percent: null, battery_level: 64 });
  });

  for (const bad of [101, -1, 55.5, '80', null]) {
    it(`when signal_percent is ${JSON.stringify(bad)}, then the heartbeat is rejected and counted, the stored reading stays, the connection stays up`, async () => {
      const phone = await connected();
      await heartbeat(phone, { ...HEARTBEAT, signal_percent: 20 });
      const counted = fx.gateway.services.metrics.value(REJECTED, { reason: 'invalid_payload' });
      await heartbeat(phone, { ...HEARTBEAT, battery_level: 10, signal_percent: bad });
      expect(fx.gateway.services.metrics.value(REJECTED, { reason: 'invalid_payload' })).to.equal(counted + 1);
      expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body).to.include({ signal_percent: 20, battery_level: 64 });
      expect(phone.mqtt.closed).to.equal(false);
    });
  }
});
