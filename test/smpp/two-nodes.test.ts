// Two gateways sharing PostgreSQL and Redis: a credential revoked through one node unbinds its
// session on the other at once (told over Redis), and a receipt owed to an ESME bound on the other
// node reaches it there.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { useGateway } from '../support/use-gateway.ts';
import { bindEsme, issueCredential, SMPP_ON } from '../support/smpp-client.ts';
import { testDatabase } from '../support/environment.ts';
import { createTenant } from '../support/tenant.ts';
import { connectDevice } from '../support/devices.ts';
import type { Config } from '../../src/config.ts';
import type { Gateway } from '../../src/gateway.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

// Several nodes need PostgreSQL: the embedded database belongs to one process.
if (testDatabase().kind === 'postgres') describe('SMPP: two nodes', function () {
  this.timeout(30_000);
  const shared = (): Partial<Config> => ({ smpp: SMPP_ON, redisUrl: REDIS_URL, redisPrefix: `sgw-smpp-${randomBytes(4).toString('hex')}`, nodeId: 'smpp-a' });
  let prefix: Partial<Config>;
  const fx = useGateway({
    config: () => (prefix = shared()),
    tenant: 'none',
  });
  let other: Gateway;

  before(async () => {
    const { webhooks } = fx.gateway.config;
    other = await fx.startGateway({ ...prefix, nodeId: 'smpp-b', webhooks });
  });

  it('unbinds a session on the other node at once when its credential is revoked', async () => {
    const tenant = await createTenant(fx.gateway);
    const credential = await issueCredential(tenant);
    const esme = await bindEsme(other, credential);
    try {
      const unbind = esme.next((pdu) => pdu.command === 'unbind', 3_000);
      expect((await tenant.api.delete(`/smpp/credentials/${credential.id}`)).status).to.equal(200);
      await unbind;
    } finally {
      esme.close();
    }
  });

  it('sends a receipt to the ESME bound on the other node', async () => {
    const tenant = await createTenant(fx.gateway);
    fx.track(await connectDevice(fx.gateway, tenant));
    const credential = await issueCredential(tenant);
    const transmitter = await bindEsme(fx.gateway, credential, 'bind_transmitter');
    const receiver = await bindEsme(other, credential, 'bind_receiver');
    try {
      const submitted = await transmitter.call('submit_sm', { destination_addr: '+79161234567', short_message: 'across nodes', registered_delivery: 1 });
      const receipt = await receiver.receiptOf(submitted.message_id, 10_000);
      expect((receipt.short_message as { message: string }).message).to.contain('stat:DELIVRD');
    } finally {
      transmitter.close();
      receiver.close();
    }
  });
});
