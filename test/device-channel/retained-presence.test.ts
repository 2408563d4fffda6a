// The retained presence is what the gateway believes. A phone that stops cleanly sends no last
// will, and a silent phone sends nothing: the gateway publishes the retained "offline" itself
// whenever it decides a device is offline, and "online" when it comes back, so an operator
// subscribing later never sees "online" for a device the API shows offline.
import { expect } from 'chai';
import { nextDomainEvent } from '../support/devices.ts';
import type { Gateway } from '../../src/gateway.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, registerDevice, type Tenant } from '../support/tenant.ts';
import { mqttUrl, RawClients, topic, type RawClient } from '../support/mqtt.ts';

const heartbeat = JSON.stringify({ battery_level: 70, is_charging: false, sim_cards: [] });

function presenceOf(deviceId: string) {
  return (message: { topic: string }) => message.topic === topic(deviceId, 'presence');
}

describe('device channel: the retained presence follows the gateway', () => {
  let gateway: Gateway;
  let tenant: Tenant;
  let clients: RawClients;

  /** An operator of the tenant subscribed to the device's presence; resolves with the first (retained) message. */
  const operatorSees = async (deviceId: string): Promise<{ operator: RawClient; retained: { payload: string; retain: boolean } }> => {
    const operator = await clients.connect({ clientId: `operator-${deviceId.slice(0, 8)}-${Date.now()}`, username: 'ops', password: tenant.key });
    await operator.subscribe(topic(deviceId, 'presence'));
    const retained = await operator.nextMessage(presenceOf(deviceId));
    return { operator, retained };
  };

  before(async function () {
    // Starting a gateway on the embedded database takes longer than a test on a busy machine.
    this.timeout(Math.max(this.timeout(), 30_000));
    gateway = await startGateway({ deviceOfflineAfterMs: 1_500 });
    clients = new RawClients(() => mqttUrl(gateway));
  });
  beforeEach(async () => {
    tenant = await createTenant(gateway);
  });
  afterEach(async () => clients.endAll());
  after(async () => gateway.stop());

  describe('when a phone that announced "online" disconnects cleanly (no last will)', () => {
    it('then an operator subscribing afterwards gets the retained "offline"', async () => {
      const { device, token } = await registerDevice(gateway, tenant);
      const phone = await clients.device(device.id, token, { keepalive: 60 });
      await phone.publish(topic(device.id, 'presence'), 'online', { qos: 1, retain: true });
      const { retained: before } = await operatorSees(device.id);
      expect(before.payload).to.equal('online');

      const offline = nextDomainEvent(gateway.services.events, 'device.offline');
      await phone.client.endAsync();
      await offline;
      expect(gateway.services.presence.isOnline(device.id)).to.equal(false);

      const { retained } = await operatorSees(device.id);
      expect(retained.retain).to.equal(true);
      expect(retained.payload).to.equal('offline');
    });
  });

  describe('when a connected phone goes silent past DEVICE_OFFLINE_AFTER and then sends a heartbeat', () => {
    it('then watchers see "offline" then "online", and each is the retained state meanwhile', async () => {
      const { device, token } = await registerDevice(gateway, tenant);
      const phone = await clients.device(device.id, token, { keepalive: 60 });
      await phone.publish(topic(device.id, 'presence'), 'online', { qos: 1, retain: true });
      const { operator: watcher } = await operatorSees(device.id);

      const wentOffline = await watcher.nextMessage((message) => presenceOf(device.id)(message) && message.payload === 'offline', 10_000);
      expect(wentOffline.payload).to.equal('offline');
      expect(phone.closed, 'still connected').to.equal(false);
      expect((await operatorSees(device.id)).retained.payload).to.equal('offline');

      await phone.publish(topic(device.id, 'heartbeat'), heartbeat, { qos: 1 });
      await watcher.nextMessage((message) => presenceOf(device.id)(message) && message.payload === 'online', 5_000);
      expect((await operatorSees(device.id)).retained.payload).to.equal('online');
    });
  });

  describe('when a phone takes over its own session', () => {
    it('then the retained presence stays "online"', async () => {
      const { device, token } = await registerDevice(gateway, tenant);
      const first = await clients.device(device.id, token, { keepalive: 60 });
      await first.publish(topic(device.id, 'presence'), 'online', { qos: 1, retain: true });
      const second = await clients.device(device.id, token, { keepalive: 60 });
      await first.whenClosed();
      expect(second.closed).to.equal(false);
      expect(gateway.services.presence.isOnline(device.id)).to.equal(true);
      expect((await operatorSees(device.id)).retained.payload).to.equal('online');
    });
  });

  describe('when an operator subscribes through a wildcard', () => {
    it('then the retained presence comes at the lower of its QoS and the QoS granted to that subscription', async () => {
      const { device, token } = await registerDevice(gateway, tenant);
      const phone = await clients.device(device.id, token, { keepalive: 60 });
      await phone.publish(topic(device.id, 'presence'), 'online', { qos: 1, retain: true });
      const everyPresence = topic('+', 'presence');
      for (const qos of [0, 1] as const) {
        const operator = await clients.connect({ clientId: `operator-qos${qos}-${Date.now()}`, username: 'ops', password: tenant.key });
        expect(await operator.subscribe(everyPresence, qos)).to.deep.equal([qos]);
        const retained = await operator.nextMessage(presenceOf(device.id));
        expect(retained.retain).to.equal(true);
        expect(retained.qos, `subscribed at QoS ${qos}`).to.equal(qos);
      }
    });
  });
});
