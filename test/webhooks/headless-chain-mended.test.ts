// The safety net under ordered delivery: an SMS whose pending events to a webhook have none of
// them flagged as the one to send next would keep them for ever (never claimed, and never given
// up while the webhook is on). No transaction should leave a chain so (chain-head-movers.test.ts
// drives the ones that once could); if one does, the sweep gives the chain its head back within a
// sweep and says so in a warning, so that the fault is seen and the events still go out, in order.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Gateway } from '../../src/gateway.ts';
import { WebhookOutbox } from '../../src/modules/webhooks/ordering/outbox.ts';
import type { EventEnvelope } from '../../src/modules/webhooks/event-contract.ts';
import { ownDatabase, type EmptyDatabase } from '../support/empty-database.ts';
import { testDatabase } from '../support/environment.ts';
import { startGateway } from '../support/gateway.ts';
import { Receiver } from '../support/receiver.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';
import { leaveChainWithoutHead } from '../support/test-data.ts';

/** A retry window of 20 s: the sweep that gives up and mends runs every second (a twentieth of it). */
const RETRY_FOR_MS = 20_000;

function statusEvent(accountId: string, smsId: string, status: string): { envelope: EventEnvelope } {
  return { envelope: { id: randomUUID(), type: 'sms.status_changed', timestamp: new Date().toISOString(), account_id: accountId, data: { sms: { id: smsId, status } } } };
}

describe('webhooks: a chain left with no head is mended by the sweep', () => {
  const warnings: Record<string, any>[] = [];
  let database: EmptyDatabase | undefined;
  let gateway: Gateway;
  let tenant: Tenant;
  let receiver: Receiver;

  before(async function () {
    this.timeout(120_000);
    receiver = new Receiver();
    await receiver.start();
    // A database of its own on PostgreSQL: no other gateway's sweep mends the chain first.
    if (testDatabase().kind === 'postgres') database = await ownDatabase('mended');
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const text of chunk.toString().split('\n')) if (text.trim()) warnings.push(JSON.parse(text));
        done();
      },
    });
    gateway = await startGateway({ logLevel: 'warn', webhooks: webhookConfig({ retryForMs: RETRY_FOR_MS }), ...(database ? { databaseUrl: database.url } : {}) }, undefined, sink);
    tenant = await createTenant(gateway);
  });
  after(async () => {
    await gateway?.stop();
    await receiver?.stop();
    await database?.drop();
  });

  it('when the events of an SMS wait with none of them next, then the first goes out within a sweep and the others after it in order, and a warning names the webhook', async function () {
    this.timeout(20_000);
    const { db } = gateway.services;
    const { webhook } = await createWebhook(tenant, receiver.url, ['sms.status_changed']);
    const smsId = randomUUID();
    // Three events of one SMS, committed with none of them the head.
    await db.transaction(async (trx) => {
      await new WebhookOutbox(RETRY_FOR_MS).record(trx, ['processing', 'sent', 'delivered'].map((status) => statusEvent(tenant.accountId, smsId, status)));
      await leaveChainWithoutHead(trx, webhook.id);
    });

    const received = await receiver.waitFor(3, (request) => request.json?.data?.sms?.id === smsId, 10_000);
    expect(received.map((request) => request.json.data.sms.status)).to.deep.equal(['processing', 'sent', 'delivered']);
    const mended = warnings.filter((line) => (line.webhookIds as string[] | undefined)?.includes(webhook.id));
    expect(mended, 'one warning names the webhook').to.have.length(1);
    expect(mended[0]).to.include({ level: 40, chains: 1 });
    expect(mended[0]!.msg).to.match(/no delivery to send next/);
  });
});
