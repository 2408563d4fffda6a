// A webhook whose signing secret this gateway's key cannot decrypt (sealed under another
// WEBHOOK_SECRET_KEY or DATA_DIR) can never sign a delivery. It is disabled with a reason that
// says so, in one log line however many of its deliveries find it, and its deliveries wait for a
// rotated secret instead of failing the same way for the whole retry window.
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Gateway } from '../../src/gateway.ts';
import { SecretBox } from '../../src/modules/webhooks/outbound/secret-box.ts';
import { WebhookOutbox } from '../../src/modules/webhooks/ordering/outbox.ts';
import type { EventEnvelope } from '../../src/modules/webhooks/event-contract.ts';
import { startGateway } from '../support/gateway.ts';
import { Receiver } from '../support/receiver.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { eventually } from '../support/eventually.ts';
import { replaceStoredWebhookSecret } from '../support/test-data.ts';
import { createWebhook, deliveryLog, dropWebhooks, readWebhook, webhookConfig } from '../support/webhooks.ts';

const UNREADABLE = "webhook disabled: its signing secret cannot be decrypted with this gateway's key";

function statusEvent(accountId: string): { envelope: EventEnvelope } {
  return { envelope: { id: randomUUID(), type: 'sms.status_changed', timestamp: new Date().toISOString(), account_id: accountId, data: { sms: { id: randomUUID(), status: 'sent' } } } };
}

describe('webhooks: a signing secret the key cannot decrypt', () => {
  const lines: Record<string, any>[] = [];
  let gateway: Gateway;
  let tenant: Tenant;
  let receiver: Receiver;

  before(async function () {
    this.timeout(60_000);
    receiver = new Receiver();
    await receiver.start();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const text of chunk.toString().split('\n')) if (text.trim()) lines.push(JSON.parse(text));
        done();
      },
    });
    gateway = await startGateway({ logLevel: 'warn', webhooks: webhookConfig() }, undefined, sink);
    tenant = await createTenant(gateway);
  });
  after(async () => {
    if (gateway) await dropWebhooks(gateway, [tenant.accountId]);
    await gateway?.stop();
    await receiver?.stop();
  });

  it('when its deliveries are due, then the webhook is disabled with the reason, said once in the log, and nothing is retried', async function () {
    this.timeout(20_000);
    const { db } = gateway.services;
    const { webhook } = await createWebhook(tenant, receiver.url, ['sms.status_changed']);
    // Its secret as a command with another key would have sealed it.
    await replaceStoredWebhookSecret(gateway, webhook.id, new SecretBox(randomBytes(32)).seal('whsec_elsewhere'));
    // Three events of three SMS, all due at once.
    await db.transaction((trx) => new WebhookOutbox(60_000).record(trx, [statusEvent(tenant.accountId), statusEvent(tenant.accountId), statusEvent(tenant.accountId)]));
    gateway.services.webhookSender.wake();

    const disabled = await eventually('the webhook disabled', async () => {
      const view = await readWebhook(tenant, webhook.id);
      return !view.enabled && view;
    }, 10_000);
    expect(disabled.disabled_reason).to.contain('signing secret cannot be decrypted').and.to.contain('rotate the secret');
    // Every claimed delivery's outcome is recorded; none is due again while the webhook is off.
    const log = await eventually('every attempt recorded', async () => {
      const deliveries = await deliveryLog(tenant, webhook.id);
      const attempted = deliveries.filter((delivery) => delivery.attempts > 0);
      return deliveries.length === 3 && attempted.length > 0 && attempted.every((delivery) => delivery.last_error !== null) && deliveries;
    }, 10_000);
    for (const delivery of log) {
      expect(delivery.attempts, JSON.stringify(delivery)).to.be.at.most(1);
      expect(delivery.status).to.equal('pending');
      if (delivery.attempts === 1) expect(delivery.last_error).to.contain('cannot be decrypted');
    }
    expect(log.some((delivery) => delivery.attempts === 1)).to.equal(true);
    expect(receiver.received).to.have.length(0);
    const said = lines.filter((line) => line.msg === UNREADABLE);
    expect(said, JSON.stringify(lines)).to.have.length(1);
    expect(said[0]).to.include({ webhookId: webhook.id, accountId: tenant.accountId });
    expect(JSON.stringify(lines)).not.to.contain('Unsupported state');
  });
});
