// Keepalives the gateway does not take as they are. MQTT 3.1.1 has no CONNACK code for them, so
// instead of refusing (Aedes answered 6, which 3.1.1 does not define) the gateway accepts the
// CONNECT and applies its own limit of 600 s, for a keepalive over 600 s and for none at all
// (0); each such CONNECT is counted and logged.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, registerDevice } from '../support/tenant.ts';
import { mqttUrl, RawClients } from '../support/mqtt.ts';
import { applyKeepaliveLimit, MAX_KEEPALIVE_SECONDS } from '../../broker/keepalive.ts';

const ADJUSTED = 'mqtt_keepalive_adjusted_total';

describe('device channel: keepalive limits', () => {
  let gateway: Gateway;
  let clients: RawClients;
  const adjusted = (requested: string) => gateway.services.metrics.value(ADJUSTED, { requested });

  before(async function () {
    // Starting a gateway on the embedded database takes longer than a test on a busy machine.
    this.timeout(Math.max(this.timeout(), 30_000));
    gateway = await startGateway();
    clients = new RawClients(() => mqttUrl(gateway));
  });
  afterEach(async () => clients.endAll());
  after(async () => gateway.stop());

  const connectWith = async (keepalive: number) => {
    const tenant = await createTenant(gateway);
    const { device, token } = await registerDevice(gateway, tenant);
    const phone = await clients.device(device.id, token, { keepalive });
    return { phone, deviceId: device.id };
  };

  for (const keepalive of [601, 3_600, 65_535]) {
    describe(`when a device connects with a keepalive of ${keepalive} s`, () => {
      it('then it is accepted (CONNACK 0), comes online, and the over-limit keepalive is counted', async () => {
        const before = adjusted('over_limit');
        const { phone, deviceId } = await connectWith(keepalive);
        expect(phone.closed).to.equal(false);
        expect(gateway.services.presence.isOnline(deviceId)).to.equal(true);
        expect(adjusted('over_limit') - before).to.equal(1);
      });
    });
  }

  describe('when a device connects with keepalive 0 (none)', () => {
    it('then it is accepted, comes online, and the missing keepalive is counted', async () => {
      const before = adjusted('none_requested');
      const { phone, deviceId } = await connectWith(0);
      expect(phone.closed).to.equal(false);
      expect(gateway.services.presence.isOnline(deviceId)).to.equal(true);
      expect(adjusted('none_requested') - before).to.equal(1);
    });
  });

  describe('when a device connects with a keepalive within the limit', () => {
    it('then nothing is adjusted', async () => {
      const before = adjusted('over_limit') + adjusted('none_requested');
      await connectWith(MAX_KEEPALIVE_SECONDS);
      await connectWith(60);
      expect(adjusted('over_limit') + adjusted('none_requested')).to.equal(before);
    });
  });

  describe('the keepalive the gateway applies', () => {
    it('is the requested one up to 600 s, and 600 s for more or for none', () => {
      expect(applyKeepaliveLimit(60)).to.deep.equal({ keepalive: 60 });
      expect(applyKeepaliveLimit(600)).to.deep.equal({ keepalive: 600 });
      expect(applyKeepaliveLimit(601)).to.deep.equal({ keepalive: 600, adjusted: 'over_limit' });
      expect(applyKeepaliveLimit(0)).to.deep.equal({ keepalive: 600, adjusted: 'none_requested' });
    });
  });
});
