// In-memory embedded databases (tests, the demo) start from a copy of the first one's cluster,
// taken once it was migrated: a later one must find every migration applied, and nothing that
// the first one wrote after its migration.
import { expect } from 'chai';
import { closeDatabase, migrate, openDatabase, type Database } from '../../src/storage/database.ts';
import { migrations } from '../../db/migrations/index.ts';
import { allAccountNames, insertAccount } from '../support/test-data.ts';

describe('storage: in-memory databases', () => {
  const opened: Database[] = [];
  const open = async () => {
    const db = await openDatabase({ dataDir: ':memory:' });
    opened.push(db);
    return db;
  };
  after(async () => {
    for (const db of opened) await closeDatabase(db);
  });

  it('when one was migrated and written to, then the next one has nothing to migrate and none of its rows', async function () {
    // The first one of the process initialises a cluster and runs every migration: seconds, more on a busy machine.
    this.timeout(120_000);
    const first = await open();
    await migrate(first);
    await insertAccount(first, 'written after the migration');

    const second = await open();
    expect(await migrate(second)).to.deep.equal([]);
    const applied = await second('knex_migrations').count<{ count: number }[]>({ count: '*' });
    expect(Number(applied[0]!.count)).to.equal(migrations.length);
    expect(await allAccountNames(second)).to.not.include('written after the migration');
  });
});
