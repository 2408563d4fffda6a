// A phone whose acknowledgement of a task is cut by the loss of its node, and which comes back on
// another node after the task went to another phone. Sessions stay per node: the new node has no
// subscription of the phone's yet when MQTT.js sends the unacknowledged report again, which it
// does before anything else on the new connection. The node answers that report with a revoke
// that reaches no one, then completes the acknowledgement; a phone that took that completion for
// "the task is mine" sent an SMS the other phone had sent already (a rolling restart under load).
import { expect } from 'chai';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { nextEvent, UNPACED } from '../support/devices.ts';
import { PhoneLink } from '../support/phone-link.ts';
import { useCluster } from './cluster-fixture.ts';

describe('an acknowledgement cut by the loss of a node', function () {
  this.timeout(20_000);
  const cluster = useCluster({ failoverAfterMs: 300 });
  const { fx } = cluster;

  async function phone(name: string, brokerUrl: string): Promise<SimulatedDevice> {
    const { device, token } = await fx.registerDevice(name);
    await fx.tenant.api.patch(`/devices/${device.id}/settings`, UNPACED);
    const simulated = fx.track(new SimulatedDevice({ brokerUrl, deviceId: device.id, token, name, reconnectPeriodMs: 50, maxReconnectPeriodMs: 100 }));
    await simulated.connect();
    return simulated;
  }

  it('when the phone comes back on another node after the task went to another phone, then it is told so and never sends it', async () => {
    const link = fx.track(await PhoneLink.open(fx.gateway.mqttPort));
    const mover = await phone('mover', link.url);
    const cut = link.cutWhenPhoneWrites('"status":"processing"');
    const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'taken twice?' });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.id as string;
    await cut;

    // The mover is away past FAILOVER_AFTER: the other phone, on node B, is given the task and sends it.
    const other = await phone('other', `mqtt://127.0.0.1:${cluster.b.mqttPort}`);
    await nextEvent(other, 'report', (smsId, status) => smsId === id && status === 'delivered', 10_000);

    // The mover comes back on node B, where it has no session, with its acknowledgement unfinished.
    const settled = nextEvent(mover, 'report', (smsId, status) => smsId === id && status !== 'processing', 10_000).then(() => 'sent', () => 'neither');
    const revoked = nextEvent(mover, 'revoked', (smsId) => smsId === id, 10_000).then(() => 'revoked', () => 'neither');
    link.reconnectTo(cluster.b.mqttPort);
    expect(await Promise.race([settled, revoked]), 'what the mover did with the task').to.equal('revoked');
    expect(mover.sendCount.get(id) ?? 0, 'sent by the mover').to.equal(0);

    const read = await fx.tenant.api.get(`/sms/${id}`);
    expect(read.body).to.include({ status: 'delivered', device_id: other.id });
    const history = (read.body.history as { internal_status: string }[]).map((entry) => entry.internal_status);
    expect(history).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
  });
});
