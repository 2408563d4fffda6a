// Caches on several nodes: a revoked API key, a deleted device, changed device settings and
// changed webhooks take effect on every node within 1 second (invalidation over Redis pub/sub),
// not after the 5 s cache lifetime. Two nodes on one PostgreSQL and Redis; the change is made
// on node A, and node B, which had cached the old state, must act on the new one.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config.ts';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { nextEvent } from '../support/devices.ts';
import { TEST_REDIS_URL, useCluster, within } from './cluster-fixture.ts';

describe('cache invalidation across nodes', function () {
  const cluster = useCluster({ webhooks: { ...loadConfig({}).webhooks, allowedHosts: ['127.0.0.1'], retryBaseMs: 20 } });
  const { fx } = cluster;

  /** A phone of the current tenant connected to node B (registered through node A). */
  async function phoneOnB(): Promise<SimulatedDevice> {
    const { device, token } = await fx.registerDevice('phone-on-b');
    const phone = fx.track(new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${cluster.b.mqttPort}`, deviceId: device.id, token, reconnectPeriodMs: 100 }));
    await phone.connect();
    return phone;
  }

  it('when a key is revoked on node A, then node B, which had it cached, refuses it within 1 s', async () => {
    const { key, row } = await fx.gateway.services.apiKeys.create(fx.tenant.accountId, ['devices:read']);
    const onB = cluster.onB(fx.tenant, key);
    expect((await onB.get('/devices')).status, 'B caches the live key').to.equal(200);

    expect((await fx.tenant.api.delete(`/keys/${row.id}`)).status).to.equal(200);
    const took = await within(4_000, async () => (await onB.get('/devices')).status === 401);
    expect(took, 'well inside the 5 s cache lifetime').to.be.below(1_000);
  });

  it('when an account is disabled on node A, then node B refuses its key within 1 s', async () => {
    const admin = fx.gateway.services.accounts;
    const onB = cluster.onB(fx.tenant);
    expect((await onB.get('/devices')).status).to.equal(200);

    await admin.update(fx.tenant.accountId, { disabled: true }, 'not-this-account');
    const took = await within(4_000, async () => (await onB.get('/devices')).status === 403);
    expect(took).to.be.below(1_000);
  });

  it('when a device is deleted on node A, then node B drops its connection and refuses it, and B answers 404 for it', async () => {
    const phone = await phoneOnB();
    const refused = nextEvent(phone, 'refused', () => true, 5_000);

    expect((await fx.tenant.api.delete(`/devices/${phone.id}`)).status).to.equal(204);
    expect((await refused)[0], 'not authorized').to.equal(5);
    expect((await cluster.onB(fx.tenant).get(`/devices/${phone.id}`)).status).to.equal(404);
  });

  it('when settings change on node A, then the phone connected to node B receives them', async () => {
    const phone = await phoneOnB();
    const pushed = nextEvent(phone, 'settings', (settings) => settings.send_window === 7, 2_000);

    expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { send_window: 7 })).status).to.equal(200);
    expect((await pushed)[0]).to.include({ send_window: 7 });
  });

  it('when a webhook is created on node A, then node B, which had cached "no webhook", records its events', async () => {
    const receiver = await fx.receiver();
    // Node B looks up (and caches for 5 s) whether the account listens for presence events.
    const first = await phoneOnB();
    await first.stop();

    const created = await fx.tenant.api.post('/webhooks', { url: receiver.url, events: ['device.online'] });
    expect(created.status).to.equal(201);
    const second = await phoneOnB();
    const [delivery] = await receiver.waitFor(1, (received) => received.json?.data?.device?.id === second.id, 5_000);
    expect(delivery!.json.type).to.equal('device.online');
  });

  it('when anything else is published on the channel, then it is ignored and the nodes go on serving and invalidating', async () => {
    const onB = cluster.onB(fx.tenant);
    expect((await onB.get('/devices')).status).to.equal(200);
    const intruder = new Redis(TEST_REDIS_URL);
    try {
      const channel = `${cluster.shared.redisPrefix}:cache-invalidation`;
      const garbage = ['not json', '[]', 'null', '{"from":"x","kind":"everything","id":"1"}', `{"from":"x","kind":"api_key","id":"${'a'.repeat(600)}"}`, '{"from":"x","kind":"device_deleted","id":"../../etc"}'];
      for (const message of garbage) await intruder.publish(channel, message);
    } finally {
      intruder.disconnect();
    }
    expect((await onB.get('/devices')).status).to.equal(200);
    const { key, row } = await fx.gateway.services.apiKeys.create(fx.tenant.accountId, ['devices:read']);
    const revokedOnB = cluster.onB(fx.tenant, key);
    expect((await revokedOnB.get('/devices')).status).to.equal(200);
    expect((await fx.tenant.api.delete(`/keys/${row.id}`)).status).to.equal(200);
    expect(await within(4_000, async () => (await revokedOnB.get('/devices')).status === 401)).to.be.below(1_000);
  });
});
