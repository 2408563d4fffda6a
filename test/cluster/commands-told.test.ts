// A command runs in a process of its own. With REDIS_URL set, the changes the running gateways
// must act on at once are told to them over Redis, as one node tells another: a device token
// replaced closes the phone's old connection, a revoked API key stops working, a revoked SMPP
// credential's sessions are unbound, each within a second on a node the command never spoke to;
// a webhook created by a command hears device events on every node at once.
import { expect } from 'chai';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { RawClients } from '../support/mqtt.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { jsonOf, runCli, type CliResult } from '../support/cli.ts';
import { bindEsme, issueCredential, SMPP_ON } from '../support/smpp-client.ts';
import { TEST_REDIS_URL, useCluster, within } from './cluster-fixture.ts';

describe('commands tell the running gateways over Redis', function () {
  this.timeout(60_000);
  const cluster = useCluster({ smpp: SMPP_ON, webhooks: webhookConfig() });
  const { fx } = cluster;
  const onB = new RawClients(() => `mqtt://127.0.0.1:${cluster.b.mqttPort}`);
  afterEach(() => onB.endAll());

  /** The command, configured as the cluster's nodes are (database, Redis, prefix, secret key). */
  async function command(...args: string[]): Promise<CliResult> {
    const shared = cluster.shared;
    const result = await runCli(args, {
      DATABASE_URL: shared.databaseUrl,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: shared.redisPrefix,
      WEBHOOK_SECRET_KEY: shared.webhooks!.secretKey!.toString('hex'),
      // The test's webhook receiver listens on loopback.
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    });
    expect(result.code, result.transcript).to.equal(0);
    return result;
  }

  it('when devices token replaces a token, then node B closes the connection made with the old one within 1 s, refuses the old token and takes the new', async () => {
    const { device, token } = await fx.registerDevice('phone-told-by-command');
    const live = await onB.device(device.id, token);

    const result = await command('devices', 'token', device.id, '--json');
    const took = await within(4_000, async () => live.closed);
    expect(took, 'told over Redis, not found at a heartbeat').to.be.below(1_000);

    expect((await onB.refused({ clientId: device.id, username: device.id, password: token })).code).to.equal(5);
    await onB.device(device.id, jsonOf(result).credentials.password);
  });

  it('when keys revoke revokes a key that node B has cached, then B refuses it within 1 s, not when its cache expires', async () => {
    const created = await fx.tenant.api.post('/keys', { permissions: ['devices:read'] });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const keyOnB = cluster.onB(fx.tenant, created.body.key);
    expect((await keyOnB.get('/devices')).status, 'the key works on B, which caches it').to.equal(200);

    await command('keys', 'revoke', created.body.prefix);
    const took = await within(4_000, async () => (await keyOnB.get('/devices')).status === 401);
    expect(took, 'told over Redis, not after the 5 s key cache').to.be.below(1_000);
  });

  it('when smpp credentials delete revokes a credential, then its session bound on node B is unbound at once, not at the next enquire_link (30 s)', async () => {
    const credential = await issueCredential(fx.tenant);
    const esme = await bindEsme(cluster.b, credential);
    try {
      // The wait covers the command's own run too (half a second alone, far more on a loaded
      // machine), and stays below the 30 s of the next enquire_link it must beat.
      const unbind = esme.next((pdu) => pdu.command === 'unbind', 20_000);
      await command('smpp', 'credentials', 'delete', credential.id);
      await unbind;
    } finally {
      esme.close();
    }
  });

  it('when webhooks create adds a device.online webhook, then node B, which had cached "no webhook", records the next phone that connects to it', async () => {
    const receiver = await fx.receiver();
    const phoneOnB = async (name: string) => {
      const { device, token } = await fx.registerDevice(name);
      const phone = fx.track(new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${cluster.b.mqttPort}`, deviceId: device.id, token, reconnectPeriodMs: 100 }));
      await phone.connect();
      return phone;
    };
    // Node B looks up (and caches for 5 s) whether the account listens for presence events.
    await (await phoneOnB('before the webhook')).stop();

    await command('webhooks', 'create', '--account', fx.tenant.accountName, '--url', receiver.url, '--events', 'device.online');
    const second = await phoneOnB('after the webhook');
    const [delivery] = await receiver.waitFor(1, (received) => received.json?.data?.device?.id === second.id, 5_000);
    expect(delivery!.json.type).to.equal('device.online');
  });
});
