// Several nodes: a number listed on node A reaches a phone connected to node B at once (A pushes
// through the broker the nodes share), and node B, which had computed the account's list before,
// gives the new list to the next phone that connects to it (told over Redis to compute it afresh).
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { nextEvent } from '../support/devices.ts';
import { useCluster } from '../cluster/cluster-fixture.ts';

type Settings = Record<string, unknown> & { opted_out?: { count: number } };

describe('the suppression list in phones\' settings, across nodes', function () {
  const cluster = useCluster({ webhooks: { ...loadConfig({}).webhooks, allowedHosts: ['127.0.0.1'] } });
  const { fx } = cluster;

  /** A phone of the tenant connected to node B; resolves with it and the first settings it got. */
  async function phoneOnB(): Promise<[SimulatedDevice, Settings]> {
    const { device, token } = await fx.registerDevice('phone-on-b');
    const phone = fx.track(new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${cluster.b.mqttPort}`, deviceId: device.id, token, reconnectPeriodMs: 100 }));
    const first = nextEvent(phone, 'settings');
    await phone.connect();
    const [settings] = await first;
    return [phone, settings as Settings];
  }

  it('when a number is listed on node A, then a phone on node B gets it now, and the next phone connecting to B gets it too', async () => {
    const [phone, before] = await phoneOnB();
    expect(before.opted_out, 'node B computed the empty list').to.equal(undefined);

    const pushed = nextEvent(phone, 'settings', (settings: Settings) => settings.opted_out?.count === 1);
    expect((await fx.tenant.api.post('/suppressions', { phone: '+79161234567' })).status).to.equal(201);
    await pushed;

    const [, later] = await phoneOnB();
    expect(later.opted_out).to.include({ count: 1 });
  });
});
