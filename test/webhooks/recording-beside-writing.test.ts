// A sender recording a batch's outcomes and a transaction writing the next events of several SMS
// (a batch of status reports) lock the same delivery rows. Both must take them in one order,
// chain by chain: otherwise each can hold a row the other waits for, PostgreSQL ends one of them
// as a deadlock, and either the batch's outcomes are lost (its deliveries wait out their lease
// before going again, holding back the SMS behind them) or the status reports are refused (and
// their events are not written until the phone sends them again).
//
// Two connections at once: PostgreSQL only (PGlite is one connection).
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Gateway } from '../../src/gateway.ts';
import type { EventEnvelope } from '../../src/modules/webhooks/event-contract.ts';
import { WebhookOutbox } from '../../src/modules/webhooks/ordering/outbox.ts';
import { endStreaks, lockWebhooks, recordAttempts } from '../../src/modules/webhooks/repository.ts';
import type { EmptyDatabase } from '../support/empty-database.ts';
import { backendWaitsForLock } from '../support/lock-waits.ts';
import type { Tenant } from '../support/tenant.ts';
import { createWebhook, gatewayWithSenderStopped, webhookConfig } from '../support/webhooks.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';
import { delayDelivery, deliveryRowsOf, deliveryStatesOf, leaseDelivery, markWebhookFailing } from '../support/test-data.ts';

function statusEvent(accountId: string, smsId: string, status: string): { envelope: EventEnvelope } {
  return { envelope: { id: randomUUID(), type: 'sms.status_changed', timestamp: new Date().toISOString(), account_id: accountId, data: { sms: { id: smsId, status } } } };
}

describe('webhooks: recording outcomes while the next events are written', () => {
  // Recording and writing in two transactions at once: the embedded database has one connection.
  onlyOnPostgres();
  let gateway: Gateway;
  let tenant: Tenant;
  let database: EmptyDatabase;

  before(async function () {
    this.timeout(120_000);
    // The test moves the deliveries by hand: the gateway's own sender must not.
    ({ gateway, tenant, database } = await gatewayWithSenderStopped('recording'));
  });
  after(async () => {
    await gateway?.stop();
    await database?.drop();
  });

  it('when a success ends the webhook\'s failure streak while events of an earlier SMS and then of a later one are written, then both commit: the later SMS\'s waiting event is due at once and the earlier one\'s next event is its head', async function () {
    this.timeout(20_000);
    const { db } = gateway.services;
    const outbox = new WebhookOutbox(3_600_000);
    const { webhook } = await createWebhook(tenant, 'http://127.0.0.1:9/hook', ['sms.status_changed']);
    // Chain order is by SMS id: "earlier" sorts first.
    const [earlier, later] = [randomUUID(), randomUUID()].sort() as [string, string];
    await outbox.record(db, [statusEvent(tenant.accountId, earlier, 'processing'), statusEvent(tenant.accountId, later, 'processing')]);
    const first = async (smsId: string): Promise<string> => (await deliveryRowsOf(gateway, webhook.id)).find((row) => row.ordering_key === smsId).id;
    const inFlight = await first(earlier);
    const waiting = await first(later);
    // The earlier SMS's first event is in flight (claimed, leased); the later one's failed and
    // waits out its backoff; the webhook's failure streak runs.
    await leaseDelivery(gateway, inFlight);
    await delayDelivery(gateway, waiting);
    await markWebhookFailing(gateway, webhook.id, new Date(), 1);

    // Status reports of both SMS in one transaction: the earlier SMS's event is written first
    // (its chain's rows held), the later one's is still to come.
    const reports = await db.transaction();
    let recording: Promise<unknown> = Promise.resolve();
    try {
      await outbox.record(reports, [statusEvent(tenant.accountId, earlier, 'sent')]);
      // Meanwhile the in-flight delivery succeeds and is recorded as the sender records it: the
      // recording waits for the reports' transaction, which holds that delivery's row.
      const pid = await new Promise<number>((started, failed) => {
        recording = db
          .transaction(async (trx) => {
            started((await trx.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0]!.pid);
            await lockWebhooks(trx, [webhook.id]);
            const ended = await endStreaks(trx, [webhook.id], new Date());
            const result = { id: inFlight, webhookId: webhook.id, status: 'delivered' as const, statusCode: 204, error: null, answer: null, nextAttemptAt: new Date() };
            await recordAttempts(trx, [result], [{ id: inFlight, webhook_id: webhook.id, ordering_key: earlier }], ended);
          })
          .then(() => null, (error: unknown) => error);
        recording.then(failed, failed);
      });
      await backendWaitsForLock(db, pid);
      // Then the later SMS's event: it must not wait for the recording, which waits for it.
      await outbox.record(reports, [statusEvent(tenant.accountId, later, 'sent')]);
      await reports.commit();
    } catch (error) {
      await reports.rollback().catch(() => {});
      throw error;
    }
    expect(await recording, 'the recording failed').to.equal(null);

    const rows = await deliveryStatesOf(gateway, webhook.id);
    const state = (row: (typeof rows)[number]) => `${row.ordering_key === earlier ? 'earlier' : 'later'} ${row.status}${row.ready ? ' head' : ''}${row.due ? ' due' : ''}`;
    expect(rows.map((row) => (row.status === 'pending' ? state(row) : `${row.ordering_key === earlier ? 'earlier' : 'later'} ${row.status}`))).to.deep.equal([
      'earlier delivered',
      'earlier pending head due',
      'later pending head due',
      'later pending due',
    ]);
  });
});
