// A new token issued on node A (POST /devices/{id}/token) while the phone is connected to node B
// with the old one: B hears it through the same "device revoked" message a deletion sends, finds
// the device live, and closes that connection without treating the device as deleted; B then
// refuses the old token and takes the new one.
import { expect } from 'chai';
import { RawClients } from '../support/mqtt.ts';
import { useCluster, within } from './cluster-fixture.ts';

describe('a new device token across nodes', function () {
  const cluster = useCluster();
  const { fx } = cluster;
  const onB = new RawClients(() => `mqtt://127.0.0.1:${cluster.b.mqttPort}`);
  afterEach(() => onB.endAll());

  it('when the token is replaced on node A, then node B closes the connection made with the old one within 1 s, refuses the old token and takes the new', async () => {
    const { device, token } = await fx.registerDevice('phone-on-b');
    const live = await onB.device(device.id, token);

    const reply = await fx.tenant.api.post(`/devices/${device.id}/token`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    const took = await within(4_000, async () => live.closed);
    expect(took, 'told over Redis, not found at a heartbeat').to.be.below(1_000);

    expect((await onB.refused({ clientId: device.id, username: device.id, password: token })).code).to.equal(5);
    await onB.device(device.id, reply.body.credentials.password);
    // Still the account's device on B: nothing was deleted.
    expect((await cluster.onB(fx.tenant).get(`/devices/${device.id}`)).status).to.equal(200);
  });
});
