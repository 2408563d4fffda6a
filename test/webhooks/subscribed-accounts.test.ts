// Whether an account has a webhook for device events is asked before each of those events is
// written. A fleet connecting or leaving at once asks it about one account thousands of times
// within a moment: one read answers every ask made while it runs, and an answer read while the
// account's webhooks changed is never kept.
import { expect } from 'chai';
import { SubscribedAccounts } from '../../src/modules/webhooks/subscribed-accounts.ts';
import { useGateway } from '../support/use-gateway.ts';
import { testDatabase } from '../support/environment.ts';
import { statementsDuring } from '../support/statements.ts';
import { createWebhook, dropWebhooks, webhookConfig } from '../support/webhooks.ts';

describe('webhooks: whether an account subscribes to device events', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });
  afterEach(() => dropWebhooks(fx.gateway, [fx.tenant.accountId]));

  // The events these tests ask about: a list of their own, so that the gateway's own asks (its
  // device listeners ask about both device events) are never counted as theirs.
  const EVENTS = ['device.offline'] as const;

  /** Whether a statement is one of these tests' reads: the webhooks table asked about EVENTS alone. */
  const isOurRead = (statement: { sql: string; bindings?: unknown[] }) =>
    /from "webhooks"/.test(statement.sql) && (statement.bindings ?? []).some((value) => JSON.stringify(value) === JSON.stringify(EVENTS));

  /** These tests' reads of the webhooks table while `run` runs. */
  async function webhookReads(run: () => Promise<unknown>): Promise<number> {
    return (await statementsDuring(fx.gateway.services.db, run)).filter(isOurRead).length;
  }

  it('answers a thousand asks made at once with one read', async () => {
    await createWebhook(fx.tenant, 'http://127.0.0.1:9/hook', ['device.offline']);
    const accounts = new SubscribedAccounts(fx.gateway.services.db, [...EVENTS]);
    let answers: boolean[] = [];
    const reads = await webhookReads(async () => {
      answers = await Promise.all(Array.from({ length: 1000 }, () => accounts.has(fx.tenant.accountId)));
    });
    expect(reads).to.equal(1);
    expect(answers.every((yes) => yes)).to.equal(true);
    // Believed afterwards: no read at all.
    expect(await webhookReads(() => accounts.has(fx.tenant.accountId))).to.equal(0);
  });

  /** Resolves when the next statement on the webhooks table is sent; rejects after `withinMs` without one. */
  function nextWebhookRead(withinMs = 5_000): Promise<void> {
    const { db } = fx.gateway.services;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        db.off('query', heard);
        reject(new Error(`no read of the webhooks table within ${withinMs} ms`));
      }, withinMs);
      const heard = (query: { sql: string; bindings?: unknown[] }) => {
        if (!isOurRead(query)) return;
        clearTimeout(timer);
        db.off('query', heard);
        resolve();
      };
      db.on('query', heard);
    });
  }

  it('reads again for an ask made after a change was heard, even while an earlier read is under way, and keeps the later answer', async function () {
    if (testDatabase().kind !== 'postgres') this.skip(); // the lock below would hold PGlite's one connection
    const { db } = fx.gateway.services;
    const accounts = new SubscribedAccounts(db, [...EVENTS]);
    // The earlier read waits behind a lock on the table, so the change is heard while it runs.
    const holder = await db.transaction();
    try {
      await holder.raw('lock table webhooks in access exclusive mode');
      const earlierSent = nextWebhookRead();
      const earlier = accounts.has(fx.tenant.accountId);
      await earlierSent;
      accounts.forget(fx.tenant.accountId);
      // Not folded into the read that started before the change: a read of its own is sent.
      const laterSent = nextWebhookRead();
      const later = accounts.has(fx.tenant.accountId);
      await laterSent;
      await holder.rollback();
      await Promise.all([earlier, later]);
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
    await createWebhook(fx.tenant, 'http://127.0.0.1:9/hook', ['device.offline']);
    accounts.forget(fx.tenant.accountId);
    expect(await accounts.has(fx.tenant.accountId)).to.equal(true);
  });
});
