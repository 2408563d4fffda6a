// Migration 034: devices registered from then on forward what they receive (the column's default
// becomes true), while a device registered before keeps the setting it had, off or on. Run on a
// database of the test's own (an embedded one with TEST_DATABASE=pglite): taking the migration
// back and forth on the suite's shared database would pull the column from under other tests.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { closeDatabase, migrate, openDatabase, type Database } from '../../src/storage/database.ts';
import { down, up } from '../../db/migrations/20261203_034_incoming_kept_on_phone.ts';
import { ownDatabase, type EmptyDatabase } from '../support/empty-database.ts';
import { testDatabase } from '../support/environment.ts';

describe('migration 034: received SMS forwarded by default for new devices', function () {
  this.timeout(60_000);
  let own: EmptyDatabase | undefined;
  let db: Database;

  before(async () => {
    if (testDatabase().kind === 'postgres') own = await ownDatabase('forward_default');
    db = await openDatabase({ databaseUrl: own?.url, dataDir: ':memory:' });
    await migrate(db);
    // The schema as it stood before: default false, no incoming_held.
    await down(db);
  });

  after(async () => {
    await closeDatabase(db);
    await own?.drop();
  });

  async function device(accountId: string, settings: { forward_incoming_sms?: boolean } = {}): Promise<string> {
    const id = randomUUID();
    await db('devices').insert({ id, object_id: id.replace(/-/g, '').slice(0, 24), account_id: accountId, name: 'phone', token_hash: 'x', ...settings });
    return id;
  }

  const forwards = async (id: string) => (await db('devices').where({ id }).first()).forward_incoming_sms as boolean;

  it('when it runs, then devices registered before keep their setting and devices registered after forward', async () => {
    const accountId = randomUUID();
    await db('accounts').insert({ id: accountId, name: `migration-034-${accountId}` });
    const off = await device(accountId);
    const on = await device(accountId, { forward_incoming_sms: true });
    expect(await forwards(off), 'the old default').to.equal(false);

    await up(db);

    expect(await forwards(off), 'a device registered before, off').to.equal(false);
    expect(await forwards(on), 'a device registered before, on').to.equal(true);
    expect(await forwards(await device(accountId)), 'a device registered after').to.equal(true);
    expect((await db('devices').where({ id: off }).first()).incoming_held, 'not reported yet').to.equal(null);
  });
});
