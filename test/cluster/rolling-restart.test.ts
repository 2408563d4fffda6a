// Operating several nodes: a node stopped for a rolling restart hands its phones over. The
// phone that reconnects to another node moves there without a device.offline and a
// device.online; the phone that does not come back is announced offline once the stopped node's
// lease (PRESENCE_LEASE, 3 s here) has run out, by a node that is still running.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { useCluster, within } from './cluster-fixture.ts';

describe('rolling restart across nodes', function () {
  const cluster = useCluster({ presenceLeaseMs: 3_000, webhooks: { ...loadConfig({}).webhooks, allowedHosts: ['127.0.0.1'], retryBaseMs: 20 } });
  const { fx } = cluster;

  it('when a node stops, then its phone that reconnects elsewhere moves silently, and the one that does not is announced offline once the lease runs out', async function () {
    this.timeout(20_000);
    const receiver = await fx.receiver();
    expect((await fx.tenant.api.post('/webhooks', { url: receiver.url, events: ['device.online', 'device.offline'] })).status).to.equal(201);
    const stopping = await fx.startGateway({ ...cluster.shared, nodeId: 'node-stopping' });
    const phoneOn = async (port: number, id: string, token: string) => {
      const phone = fx.track(new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${port}`, deviceId: id, token, reconnectPeriodMs: 0 }));
      await phone.connect();
      return phone;
    };
    const mover = await fx.registerDevice('mover');
    const leaver = await fx.registerDevice('leaver');
    await phoneOn(stopping.mqttPort, mover.device.id, mover.token);
    await phoneOn(stopping.mqttPort, leaver.device.id, leaver.token);
    await receiver.waitFor(2, (received) => received.json?.type === 'device.online', 5_000);

    const stoppedAt = performance.now();
    await stopping.stop();
    await phoneOn(cluster.b.mqttPort, mover.device.id, mover.token);

    const [offline] = await receiver.waitFor(1, (received) => received.json?.type === 'device.offline', 10_000);
    const took = performance.now() - stoppedAt;
    expect(offline!.json.data.device.id, 'only the phone that did not come back').to.equal(leaver.device.id);
    // The lease runs 3 s from the node's last renewal, which comes every second (a third of the
    // lease): it may have been renewed up to a second before the stop began.
    expect(took, 'not before the 3 s lease since its last renewal').to.be.above(2_000);
    expect(took, 'soon after it').to.be.below(8_000);
    expect((await fx.tenant.api.get(`/devices/${mover.device.id}`)).body.is_online).to.equal(true);
    await within(2_000, async () => (await fx.tenant.api.get(`/devices/${leaver.device.id}`)).body.is_online === false);

    // A later event proves nothing else was queued: exactly one online each, one offline for the leaver.
    const marker = await fx.registerDevice('marker');
    await phoneOn(fx.gateway.mqttPort, marker.device.id, marker.token);
    await receiver.waitFor(1, (received) => received.json?.data?.device?.id === marker.device.id, 5_000);
    const eventsOf = (id: string) => receiver.received.filter((received) => received.json?.data?.device?.id === id).map((received) => received.json.type);
    expect(eventsOf(mover.device.id)).to.deep.equal(['device.online']);
    expect(eventsOf(leaver.device.id)).to.deep.equal(['device.online', 'device.offline']);
  });
});
