// Presence events for the silence rule: a connected device that shows no activity for
// DEVICE_OFFLINE_AFTER is offline, and that transition fires `device.offline` exactly like a
// disconnect does; its next activity fires `device.online` exactly like a connect does.
// The gateway runs DevicePresence's periodic check itself (test/unit/presence.test.ts tests the check).
import { expect } from 'chai';
import { DevicePresence } from '../../src/modules/devices/presence.ts';
import { useGateway } from '../support/use-gateway.ts';
import { topic } from '../support/mqtt.ts';
import { Receiver, type Received } from '../support/receiver.ts';
import { createWebhook, dropWebhooks, webhookConfig } from '../support/webhooks.ts';

const OFFLINE_AFTER_MS = 1_500;

describe('device presence: the silence rule fires device.offline and device.online', () => {
  const fx = useGateway({ config: { deviceOfflineAfterMs: OFFLINE_AFTER_MS, webhooks: webhookConfig() } });
  let receiver: Receiver;

  before(() => {
    // The gateway starts the periodic check; starting it again changes nothing.
    fx.gateway.services.presence.start();
  });
  beforeEach(async () => {
    receiver = await fx.receiver();
  });
  afterEach(async () => {
    await dropWebhooks(fx.gateway, [fx.tenant.accountId]);
  });

  const ofType = (type: string, deviceId: string) => (request: Received) => request.json?.type === type && request.json?.data?.device?.id === deviceId;

  describe('when a connected device stays silent past DEVICE_OFFLINE_AFTER and then sends a heartbeat', () => {
    it('then device.offline arrives without a disconnect, and device.online after the heartbeat', async () => {
      await createWebhook(fx.tenant, receiver.url, ['device.online', 'device.offline']);
      const { device: row, token } = await fx.registerDevice();
      const { presence } = fx.gateway.services;
      expect(presence.offlineSince(row.id), 'never seen').to.equal(undefined);
      // Keepalive 60 s: no PINGREQ (which counts as activity) during the test.
      const connectedAt = Date.now();
      const mqtt = await fx.clients.device(row.id, token, { keepalive: 60 });
      await receiver.waitFor(1, ofType('device.online', row.id));
      expect(presence.isOnline(row.id)).to.equal(true);
      expect(presence.offlineSince(row.id), 'online').to.equal(undefined);

      const [offline] = await receiver.waitFor(1, ofType('device.offline', row.id), 10_000);
      expect(offline!.json.data.device.id).to.equal(row.id);
      expect(mqtt.closed, 'still connected').to.equal(false);
      expect(presence.isOnline(row.id)).to.equal(false);
      const since = presence.offlineSince(row.id);
      expect(since, 'offline since the silence began').to.be.a('number');
      expect(since!).to.be.at.least(connectedAt + OFFLINE_AFTER_MS);
      expect(since!).to.be.at.most(Date.now());
      const shown = await fx.tenant.api.get(`/devices/${row.id}`);
      expect(shown.body.is_online).to.equal(false);

      await mqtt.publish(topic(row.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: [] }));
      await receiver.waitFor(2, ofType('device.online', row.id));
      expect(presence.isOnline(row.id)).to.equal(true);
      expect(presence.offlineSince(row.id)).to.equal(undefined);
      expect((await fx.tenant.api.get(`/devices/${row.id}`)).body.is_online).to.equal(true);
      expect(receiver.received.filter(ofType('device.offline', row.id)), 'one device.offline').to.have.length(1);
      expect(mqtt.closed).to.equal(false);
    });
  });

  describe('when a device goes silent and then disconnects', () => {
    it('then only the silence fires device.offline, once', async () => {
      await createWebhook(fx.tenant, receiver.url, ['device.online', 'device.offline']);
      const { device: row, token } = await fx.registerDevice();
      const mqtt = await fx.clients.device(row.id, token, { keepalive: 60 });
      await receiver.waitFor(1, ofType('device.offline', row.id), 10_000);
      const since = fx.gateway.services.presence.offlineSince(row.id);
      await mqtt.client.endAsync();
      await mqtt.whenClosed();
      // A new connection afterwards is the next event: nothing came in between.
      const again = await fx.clients.device(row.id, token, { keepalive: 60 });
      const events = await receiver.waitFor(3, (request) => request.json?.data?.device?.id === row.id);
      const inOrder = [...events].sort((a, b) => Date.parse(a.json.timestamp) - Date.parse(b.json.timestamp));
      expect(inOrder.map((request) => request.json.type)).to.deep.equal(['device.online', 'device.offline', 'device.online']);
      expect(since).to.be.a('number');
      expect(again.closed).to.equal(false);
    });
  });
});
