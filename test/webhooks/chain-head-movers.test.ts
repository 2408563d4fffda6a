// The head of a delivery chain (the one delivery of an SMS to a webhook that may be sent) is moved
// on by three kinds of transaction: the sender recording the head as done, the sweep giving up
// deliveries whose retry window closed while their webhook was disabled, and a retry by hand.
// Each reads the chain, then writes which of its pending deliveries is the head. When two of
// them do that to one chain at once, the one that waits for the other's row lock writes what it
// read before waiting: a chain can end with no head (its deliveries never go out) or with two
// (two of its events on their way at once). So they take their webhooks' rows first, one after
// the other, and each reads the chain once the other has committed.
//
// Each case drives two real transactions by hand in the order that went wrong, one waiting for
// the other's lock. Two connections at once: PostgreSQL only (PGlite is one connection, so there
// no two transactions ever overlap).
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Gateway } from '../../src/gateway.ts';
import type { EventEnvelope } from '../../src/modules/webhooks/event-contract.ts';
import { WebhookOutbox } from '../../src/modules/webhooks/ordering/outbox.ts';
import { giveUpExpired, lockWebhooks, recordAttempts, requeueDelivery, type AttemptResult } from '../../src/modules/webhooks/repository.ts';
import type { EmptyDatabase } from '../support/empty-database.ts';
import { backendWaitsForLock } from '../support/lock-waits.ts';
import type { Tenant } from '../support/tenant.ts';
import { createWebhook, gatewayWithSenderStopped, webhookConfig } from '../support/webhooks.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';
import { closeDeliveryRetries, deliveryRowsOf, giveUpDelivery, leaseDelivery, markWebhookDisabled, orderingKeyOf } from '../support/test-data.ts';

function statusEvent(accountId: string, smsId: string, status: string): { envelope: EventEnvelope } {
  return { envelope: { id: randomUUID(), type: 'sms.status_changed', timestamp: new Date().toISOString(), account_id: accountId, data: { sms: { id: smsId, status } } } };
}

/** What the sender writes for a delivery its receiver accepted. */
function delivered(id: string, webhookId: string): AttemptResult {
  return { id, webhookId, status: 'delivered', statusCode: 204, error: null, answer: null, nextAttemptAt: new Date() };
}

describe('webhooks: a chain keeps one head while two transactions move it', () => {
  // Two transactions moving one chain at once: the embedded database has one connection.
  onlyOnPostgres();
  let gateway: Gateway;
  let tenant: Tenant;
  let database: EmptyDatabase;
  const outbox = new WebhookOutbox(3_600_000);

  before(async function () {
    this.timeout(120_000);
    // The test moves the deliveries by hand: the gateway's own sender must not.
    ({ gateway, tenant, database } = await gatewayWithSenderStopped('chainheads'));
  });
  after(async () => {
    await gateway?.stop();
    await database?.drop();
  });

  /** A webhook with one SMS's three events written: its chain, in order. */
  async function chainOfThree(): Promise<{ webhookId: string; smsId: string; ids: [string, string, string] }> {
    const { db } = gateway.services;
    const { webhook } = await createWebhook(tenant, 'http://127.0.0.1:9/hook', ['sms.status_changed']);
    const smsId = randomUUID();
    await outbox.record(db, ['processing', 'sent', 'delivered'].map((status) => statusEvent(tenant.accountId, smsId, status)));
    const rows: { id: string }[] = await deliveryRowsOf(gateway, webhook.id);
    return { webhookId: webhook.id, smsId, ids: rows.map((row) => row.id) as [string, string, string] };
  }

  /** Each delivery of the chain as "status" or "pending head" / "pending waiting". */
  async function chainState(webhookId: string): Promise<string[]> {
    const rows = await deliveryRowsOf(gateway, webhookId);
    return rows.map((row) => (row.status === 'pending' ? `pending ${row.ready ? 'head' : 'waiting'}` : row.status));
  }

  /**
   * Runs `recording` (the sender recording outcomes) in a transaction of its own while `holder`
   * is open, and commits `holder` once the recording waits for one of its locks. Answers the
   * recording's error, or null.
   */
  async function recordBeside(db: Knex, holder: Knex.Transaction, recording: (trx: Knex.Transaction) => Promise<void>): Promise<unknown> {
    let done: Promise<unknown> = Promise.resolve(null);
    try {
      const pid = await new Promise<number>((started, failed) => {
        done = db
          .transaction(async (trx) => {
            started((await trx.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0]!.pid);
            await recording(trx);
          })
          .then(() => null, (error: unknown) => error);
        done.then(failed, failed);
      });
      await backendWaitsForLock(db, pid);
      await holder.commit();
    } catch (error) {
      await holder.rollback().catch(() => {});
      throw error;
    }
    return done;
  }

  it('when the sweep gives up the delivery after the head while the head is recorded as delivered, then the next pending delivery is the head', async function () {
    this.timeout(20_000);
    const { db } = gateway.services;
    const { webhookId, ids } = await chainOfThree();
    const [head, second] = ids;
    // The head is on its way (claimed before the webhook was switched off through the API); the
    // second event's retry window has closed, the third's has not.
    await leaseDelivery(gateway, head);
    await markWebhookDisabled(gateway, webhookId, 'disabled through the API');
    await closeDeliveryRetries(gateway, second);

    // The sweep gives the second up (its transaction still open)...
    const sweep = await db.transaction();
    let given: { id: string }[];
    try {
      given = await giveUpExpired(sweep, new Date());
    } catch (error) {
      await sweep.rollback();
      throw error;
    }
    expect(given.map((row) => row.id)).to.deep.equal([second]);
    // ...while the head's success is recorded as the sender records it.
    const failure = await recordBeside(db, sweep, async (trx) => {
      await lockWebhooks(trx, [webhookId]);
      await recordAttempts(trx, [delivered(head, webhookId)], [{ id: head, webhook_id: webhookId, ordering_key: await orderingKeyOf(gateway, head) }]);
    });
    expect(failure, 'the recording failed').to.equal(null);

    expect(await chainState(webhookId)).to.deep.equal(['delivered', 'failed', 'pending head']);
  });

  it('when a given-up first event is retried by hand while the head after it is recorded as delivered, then only the retried one is the head', async function () {
    this.timeout(20_000);
    const { db } = gateway.services;
    const { webhookId, ids } = await chainOfThree();
    const [first, head] = ids;
    // The first event was given up, which made the second the head; the second is on its way.
    await giveUpDelivery(gateway, first, 3);
    await leaseDelivery(gateway, head);
    expect(await chainState(webhookId)).to.deep.equal(['failed', 'pending head', 'pending waiting']);

    // The second's success is being recorded (its transaction still open: it made the third the head)...
    const recording = await db.transaction();
    try {
      await lockWebhooks(recording, [webhookId]);
      await recordAttempts(recording, [delivered(head, webhookId)], [{ id: head, webhook_id: webhookId, ordering_key: await orderingKeyOf(gateway, head) }]);
    } catch (error) {
      await recording.rollback();
      throw error;
    }
    // ...while the first is retried by hand.
    const failure = await recordBeside(db, recording, async (trx) => {
      const row = await requeueDelivery(trx, webhookId, first, new Date(Date.now() + 3_600_000));
      expect(row?.id).to.equal(first);
    });
    expect(failure, 'the retry failed').to.equal(null);

    expect(await chainState(webhookId)).to.deep.equal(['pending head', 'delivered', 'pending waiting']);
  });
});
