// The SMS that API requests create at the same moment are inserted as one statement (SmsWriter).
// When the database refuses one of the rows (here a check that refuses one message, standing in
// for a row that breaks a rule), that row fails alone and its neighbours are created, the batch
// written in halves rather than row by row; a failure every row would meet (a statement refused
// whole) is answered to every request of the batch at once.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { useGateway } from '../support/use-gateway.ts';
import { SmsWriter } from '../../src/modules/messages/sms-writer.ts';
import type { SmsRecord } from '../../src/modules/messages/types.ts';
import { newObjectId } from '../../src/common/object-id.ts';
import { storedSmsIdsAmong } from '../support/test-data.ts';

const REFUSED = 'refused by the check';

describe('POST /sms: SMS written together, one refused', () => {
  const fx = useGateway();

  function record(message: string): SmsRecord {
    const now = new Date();
    return {
      id: randomUUID(),
      object_id: newObjectId(),
      account_id: fx.tenant.accountId,
      device_id: null,
      device_named: false,
      phone: '+79161234567',
      message,
      status: 'pending',
      sim_slot: null,
      callback_id: null,
      send_at: null,
      expires_at: null,
      priority: 0,
      dispatched_at: null,
      reason: null,
      created_at: now,
      updated_at: now,
      kind: 'text',
      is_encrypted: false,
      data: null,
      data_port: null,
    };
  }

  /**
   * Runs `work` while the database refuses SMS with the message REFUSED (a check violation, one
   * row's), or every insert into sms whole (permission denied, as for a role that lost its
   * grant), counting the insert statements on sms either way.
   */
  async function withRefusal<T>(refuse: 'one row' | 'every statement', work: (statements: () => Promise<number>) => Promise<T>): Promise<T> {
    const db = fx.gateway.services.db;
    await db.raw('create sequence test_sms_insert_statements');
    await db.raw(`create function test_refuse_sms() returns trigger language plpgsql as $$
      begin
        if tg_level = 'STATEMENT' then raise exception 'refused for the test' using errcode = 'insufficient_privilege'; end if;
        if new.message = '${REFUSED}' then raise exception 'refused for the test' using errcode = 'check_violation'; end if;
        return new;
      end $$`);
    // A sequence is not rolled back with the statement that moved it: it counts refused statements too.
    await db.raw(`create function test_count_sms_inserts() returns trigger language plpgsql as $$
      begin perform nextval('test_sms_insert_statements'); return null; end $$`);
    // The counter first: triggers of one kind fire in the order of their names.
    await db.raw('create trigger test_count_sms_inserts before insert on sms for each statement execute function test_count_sms_inserts()');
    await db.raw(`create trigger test_refuse_sms before insert on sms for each ${refuse === 'one row' ? 'row' : 'statement'} execute function test_refuse_sms()`);
    try {
      return await work(async () => {
        const { rows } = await db.raw<{ rows: { last_value: string; is_called: boolean }[] }>('select last_value, is_called from test_sms_insert_statements');
        return rows[0]!.is_called ? Number(rows[0]!.last_value) : 0;
      });
    } finally {
      await db.raw('drop trigger test_count_sms_inserts on sms');
      await db.raw('drop trigger test_refuse_sms on sms');
      await db.raw('drop function test_count_sms_inserts()');
      await db.raw('drop function test_refuse_sms()');
      await db.raw('drop sequence test_sms_insert_statements');
    }
  }

  it('creates the neighbours of a row the database refuses, in halves: a few statements, not one a row', async () => {
    const writer = new SmsWriter(fx.gateway.services.db);
    const rows = Array.from({ length: 16 }, (_, i) => record(i === 5 ? REFUSED : `fine ${i}`));
    const { results, statements } = await withRefusal('one row', async (statements) => {
      // Written in the same turn of the event loop: one batch.
      const results = await Promise.allSettled(rows.map((row) => writer.write(row)));
      return { results, statements: await statements() };
    });
    expect(results.map((result) => result.status)).to.deep.equal(rows.map((_, i) => (i === 5 ? 'rejected' : 'fulfilled')));
    expect(((results[5] as PromiseRejectedResult).reason as { code?: string }).code).to.equal('23514');
    const stored = await storedSmsIdsAmong(fx, rows.map((row) => row.id));
    expect(stored.sort()).to.deep.equal(rows.filter((_, i) => i !== 5).map((row) => row.id).sort());
    // The sixteen, then halves down to the refused row (8, 4, 2, 1) and their other halves (1, 2, 4, 8).
    expect(statements).to.equal(9);
  });

  it('answers every request of a batch at once when the statement is refused whole', async () => {
    const writer = new SmsWriter(fx.gateway.services.db);
    const rows = Array.from({ length: 8 }, (_, i) => record(`fine ${i}`));
    const { results, statements } = await withRefusal('every statement', async (statements) => {
      const results = await Promise.allSettled(rows.map((row) => writer.write(row)));
      return { results, statements: await statements() };
    });
    expect(results.map((result) => result.status)).to.deep.equal(rows.map(() => 'rejected'));
    expect(((results[0] as PromiseRejectedResult).reason as { code?: string }).code).to.equal('42501');
    // One attempt: tried again row by row, each would be refused the same way.
    expect(statements).to.equal(1);
  });
});
