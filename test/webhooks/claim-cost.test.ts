// What a claim of due webhook deliveries reads must not grow with the deliveries waiting behind
// their SMS's earlier event: a burst of SMS with three events each leaves thousands of those, and
// a claim that reads past them on every round slows delivery and PostgreSQL for everything else.
// The claim's plan is run for real (EXPLAIN ANALYZE), and the rows its scans of the deliveries
// produced are counted.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Gateway } from '../../src/gateway.ts';
import type { EventEnvelope } from '../../src/modules/webhooks/event-contract.ts';
import { WebhookOutbox } from '../../src/modules/webhooks/ordering/outbox.ts';
import { claimDueDeliveries, claimStatement, recordAttempts } from '../../src/modules/webhooks/repository.ts';
import { parkDisabled } from '../../src/modules/webhooks/ordering/repository.ts';
import { ownDatabase, type EmptyDatabase } from '../support/empty-database.ts';
import { testDatabaseUrl } from '../support/environment.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';

const BLOCKED = 10_000;
const CLAIMABLE = 100;
const BATCH = 128;
const CHURNED = 5_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

/** Rows produced by every scan of webhook_deliveries in the plan, over all their loops. */
function deliveryRowsRead(node: PlanNode): number {
  const own = node['Relation Name'] === 'webhook_deliveries' && /Scan/.test(node['Node Type']) ? node['Actual Rows'] * node['Actual Loops'] : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + deliveryRowsRead(child), 0);
}

/** Pages read by the scans of the index of ready deliveries (an index scan, or a bitmap scan with its heap pages). */
function readyIndexPagesRead(node: PlanNode): number {
  const scansReady = (scan: PlanNode): boolean => scan['Index Name'] === 'webhook_deliveries_ready' || (scan.Plans ?? []).some(scansReady);
  if (node['Relation Name'] === 'webhook_deliveries' && /Scan/.test(node['Node Type']) && scansReady(node)) {
    return node['Shared Hit Blocks'] + node['Shared Read Blocks'];
  }
  return (node.Plans ?? []).reduce((sum, child) => sum + readyIndexPagesRead(child), 0);
}

/** The claim's plan as it ran (EXPLAIN ANALYZE), with the settings the claim runs with, its leases undone. */
async function explainClaim(gateway: Gateway): Promise<PlanNode | undefined> {
  const { settings, sql, bindings } = claimStatement(BATCH, 60_000);
  let plan: PlanNode | undefined;
  const undo = new Error('undo the claim');
  await gateway.services.db
    .transaction(async (trx) => {
      await trx.raw(settings);
      const { rows } = await trx.raw<{ rows: { 'QUERY PLAN': { Plan: PlanNode }[] }[] }>(`explain (analyze, buffers, format json) ${sql}`, bindings);
      plan = rows[0]!['QUERY PLAN'][0]!.Plan;
      throw undo;
    })
    .catch((error: unknown) => {
      if (error !== undo) throw error;
    });
  return plan;
}

function statusEvent(accountId: string, smsId: string, status: string, message?: string): EventEnvelope {
  return { id: randomUUID(), type: 'sms.status_changed', timestamp: new Date().toISOString(), account_id: accountId, data: { sms: { id: smsId, status, ...(message ? { message } : {}) } } };
}

describe('webhooks: the cost of a claim', () => {
  let gateway: Gateway;
  let tenant: Tenant;

  let database: EmptyDatabase | undefined;

  before(async function () {
    this.timeout(120_000);
    // A claim reads every account's due deliveries: on the suite's shared PostgreSQL database,
    // what earlier test files left due would be claimed too. This one is the test's own.
    if (testDatabaseUrl()) database = await ownDatabase('claim_cost');
    gateway = await startGateway({ webhooks: webhookConfig(), ...(database ? { databaseUrl: database.url } : {}) });
    // The test claims by hand: the gateway's own sender must not take rows meanwhile.
    await gateway.services.webhookSender.stop();
    tenant = await createTenant(gateway);
    await createWebhook(tenant, 'http://127.0.0.1:9/hook', ['sms.status_changed']);
  });
  after(async () => {
    await gateway?.stop();
    await database?.drop();
  });

  it(`when ${BLOCKED.toLocaleString('en')} deliveries wait behind heads that are in flight, then a claim reads about as many rows as it claims`, async function () {
    this.timeout(120_000);
    const { db } = gateway.services;
    const outbox = new WebhookOutbox(3_600_000);
    // Each SMS: a first event and a second one that must wait for it.
    const chains = Array.from({ length: BLOCKED }, () => randomUUID());
    for (let i = 0; i < chains.length; i += 1_000) {
      const events = chains.slice(i, i + 1_000).flatMap((smsId) => ['processing', 'sent'].map((status) => ({ envelope: statusEvent(tenant.accountId, smsId, status) })));
      await outbox.record(db, events);
    }
    // Every first event goes out (and stays in flight): the second events are due, and blocked.
    const heads = await claimDueDeliveries(db, BLOCKED * 2, 3_600_000);
    expect(heads).to.have.length(BLOCKED);
    expect(new Set(heads.map((head) => head.ordering_key)).size, 'one delivery of each SMS').to.equal(BLOCKED);
    // Later events of other SMS: due after every blocked delivery.
    await outbox.record(db, Array.from({ length: CLAIMABLE }, () => ({ envelope: statusEvent(tenant.accountId, randomUUID(), 'processing') })));

    const plan = await explainClaim(gateway);
    expect(plan, 'the plan was read').to.not.equal(undefined);
    expect(plan!['Actual Rows'], 'the claim took every claimable delivery').to.equal(CLAIMABLE);
    const read = deliveryRowsRead(plan!);
    expect(read, `rows of webhook_deliveries read by the claim's scans (${BLOCKED} blocked, ${CLAIMABLE} claimed)`).to.be.at.most(4 * CLAIMABLE);
  });

  it(`when a disabled webhook has ${BLOCKED.toLocaleString('en')} deliveries waiting, then a claim does not read them, and they go out once it is switched on`, async function () {
    this.timeout(120_000);
    const { db } = gateway.services;
    const outbox = new WebhookOutbox(3_600_000);
    // What the test before left due is taken (and stays in flight) first: only this test's rows are due.
    await claimDueDeliveries(db, BLOCKED * 2, 3_600_000);
    const other = await createTenant(gateway);
    const { webhook: held } = await createWebhook(other, 'http://127.0.0.1:9/held', ['sms.status_changed']);
    expect((await other.api.patch(`/webhooks/${held.id}`, { enabled: false })).status).to.equal(200);
    for (let i = 0; i < BLOCKED; i += 1_000) {
      await outbox.record(db, Array.from({ length: 1_000 }, () => ({ envelope: statusEvent(other.accountId, randomUUID(), 'processing') })));
    }
    await outbox.record(db, Array.from({ length: CLAIMABLE }, () => ({ envelope: statusEvent(tenant.accountId, randomUUID(), 'processing') })));

    const plan = await explainClaim(gateway);
    expect(plan!['Actual Rows'], 'the claim took every claimable delivery of the enabled webhook').to.equal(CLAIMABLE);
    expect(deliveryRowsRead(plan!), `rows read by the claim's scans (${BLOCKED} held, ${CLAIMABLE} claimable)`).to.be.at.most(4 * CLAIMABLE);
    const log = await other.api.get(`/webhooks/${held.id}/deliveries?limit=1`);
    expect(log.body.data[0], 'a held delivery has no next attempt while its webhook is disabled').to.include({ status: 'pending', next_attempt_at: null });

    // Switched on: every held delivery is due at once (the gateway's sender is stopped: claim by hand).
    expect((await other.api.patch(`/webhooks/${held.id}`, { enabled: true })).status).to.equal(200);
    const claimed = await claimDueDeliveries(db, BLOCKED * 2, 60_000);
    expect(claimed.filter((delivery) => delivery.webhook_id === held.id)).to.have.length(BLOCKED);
  });

  it('when a webhook is disabled after its deliveries were written, then the sweep parks them out of the claim\'s reach, and switching it on brings them back', async function () {
    this.timeout(60_000);
    const { db } = gateway.services;
    const outbox = new WebhookOutbox(3_600_000);
    await claimDueDeliveries(db, BLOCKED * 4, 3_600_000);
    const other = await createTenant(gateway);
    const { webhook } = await createWebhook(other, 'http://127.0.0.1:9/later', ['sms.status_changed']);
    await outbox.record(db, Array.from({ length: 1_000 }, () => ({ envelope: statusEvent(other.accountId, randomUUID(), 'processing') })));
    expect((await other.api.patch(`/webhooks/${webhook.id}`, { enabled: false })).status).to.equal(200);

    expect(await parkDisabled(db), 'parked by the sweep').to.equal(1_000);
    const plan = await explainClaim(gateway);
    expect(plan!['Actual Rows'], 'nothing claimable').to.equal(0);
    expect(deliveryRowsRead(plan!), 'rows read by the claim').to.be.at.most(10);

    expect((await other.api.patch(`/webhooks/${webhook.id}`, { enabled: true })).status).to.equal(200);
    const claimed = await claimDueDeliveries(db, 2_000, 60_000);
    expect(claimed.filter((delivery) => delivery.webhook_id === webhook.id)).to.have.length(1_000);
  });

  it(`when ${CHURNED.toLocaleString('en')} deliveries were claimed and delivered since the last vacuum, then a claim does not read their rows again`, async function () {
    this.timeout(120_000);
    const { db } = gateway.services;
    const outbox = new WebhookOutbox(3_600_000);
    await claimDueDeliveries(db, BLOCKED * 4, 3_600_000);
    // Bodies the size of an SMS's event: a few deliveries a page, as in a burst.
    const message = 'x'.repeat(600);
    for (let i = 0; i < CHURNED; i += 1_000) {
      await outbox.record(db, Array.from({ length: 1_000 }, () => ({ envelope: statusEvent(tenant.accountId, randomUUID(), 'processing', message) })));
    }
    // Claimed and delivered as the sender does, a batch at a time: each leaves dead versions
    // behind the due ones in the index of ready rows.
    for (;;) {
      const claimed = await claimDueDeliveries(db, BATCH, 60_000);
      if (claimed.length === 0) break;
      const results = claimed.map((delivery) => ({
        id: delivery.id,
        webhookId: delivery.webhook_id,
        status: 'delivered' as const,
        statusCode: 200,
        error: null,
        answer: null,
        nextAttemptAt: new Date(),
      }));
      await db.transaction((trx) => recordAttempts(trx, results, claimed));
    }
    await outbox.record(db, Array.from({ length: CLAIMABLE }, () => ({ envelope: statusEvent(tenant.accountId, randomUUID(), 'processing', message) })));

    const plan = await explainClaim(gateway);
    expect(plan!['Actual Rows'], 'the claim took every claimable delivery').to.equal(CLAIMABLE);
    expect(readyIndexPagesRead(plan!), `pages read through the index of ready rows (${CHURNED} delivered before, ${CLAIMABLE} claimable)`).to.be.at.most(CLAIMABLE);
  });
});
