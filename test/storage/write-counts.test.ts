// Deletes and updates answer how many rows they changed, the same number on PostgreSQL and on
// the embedded engine: repositories count what they deleted (an expiry that stops at a short
// batch, a purge that warns of what it dropped), and on the embedded engine knex used to hand
// back the driver's whole result for a delete instead.
import { expect } from 'chai';
import { closeDatabase, openDatabase, type Database } from '../../src/storage/database.ts';
import { testDatabaseUrl } from '../support/environment.ts';

describe('storage: rows changed by a delete or an update', () => {
  let db: Database;
  const table = `write_counts_${process.pid}`;

  before(async () => {
    db = await openDatabase({ databaseUrl: testDatabaseUrl(), dataDir: ':memory:' });
    await db.schema.createTable(table, (t) => t.integer('n'));
    await db(table).insert([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  after(async () => {
    await db.schema.dropTableIfExists(table);
    await closeDatabase(db);
  });

  it('answers the count of rows updated, and of rows deleted, as a number', async () => {
    expect(await db(table).where('n', '>', 1).update({ n: 9 })).to.equal(2);
    expect(await db(table).where({ n: 7 }).update({ n: 8 })).to.equal(0);
    expect(await db(table).where({ n: 9 }).delete()).to.equal(2);
    expect(await db(table).where({ n: 9 }).del()).to.equal(0);
    expect(await db(table).delete()).to.equal(1);
  });
});
