// Several nodes starting together on an empty PostgreSQL all run the migrations at once. Without
// coordination knex's first run races on its own bookkeeping tables and can leave the database
// refusing every later start; with the advisory lock in migrate() they take turns. The same holds
// for the first account, key and administrator each of them would create.
import { expect } from 'chai';
import { closeDatabase, migrate, openDatabase } from '../../src/storage/database.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { createServices } from '../../src/services.ts';
import { bootstrapFirstAccount } from '../../src/modules/accounts/bootstrap.ts';
import { ownDatabase, type EmptyDatabase } from '../support/empty-database.ts';

describe('migrations of nodes starting together', function () {
  this.timeout(60_000);
  let database: EmptyDatabase;
  before(async () => {
    database = await ownDatabase('migrate_race');
  });
  after(() => database?.drop());

  it('when four nodes migrate an empty database at the same moment, then all succeed, the migrations are applied once, and a fifth start finds nothing to do', async () => {
    const nodes = await Promise.all([1, 2, 3, 4].map(() => openDatabase({ databaseUrl: database.url, dataDir: ':memory:' })));
    try {
      const results = await Promise.allSettled(nodes.map((db) => migrate(db)));
      const failed = results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason));
      expect(failed).to.deep.equal([]);
      const applied = results.map((result) => (result as PromiseFulfilledResult<string[]>).value);
      expect(applied.filter((list) => list.length > 0), 'one node applied them').to.have.length(1);
      expect(await migrate(nodes[0]!)).to.deep.equal([]);
      const { rows } = await nodes[0]!.raw<{ rows: { n: number }[] }>('select count(*)::int as n from knex_migrations_lock');
      expect(rows[0]!.n, "knex's lock table holds its one row").to.equal(1);
    } finally {
      await Promise.all(nodes.map((db) => closeDatabase(db)));
    }
  });

  it('when three nodes make the first account at the same moment, then exactly one does, with one key and one administrator', async () => {
    const config = { ...loadConfig({}), databaseUrl: database.url, sessions: { ...loadConfig({}).sessions, passwordHashCost: 10 } };
    const nodes = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: database.url, dataDir: ':memory:' })));
    try {
      const logger = createLogger('silent');
      const firsts = await Promise.all(nodes.map((db) => bootstrapFirstAccount(createServices(config, db, logger))));
      expect(firsts.filter(Boolean), 'one node made it').to.have.length(1);
      const count = async (table: string) => Number((await nodes[0]!(table).count<{ n: string }[]>({ n: '*' }))[0]!.n);
      expect([await count('accounts'), await count('api_keys'), await count('users')]).to.deep.equal([1, 1, 1]);
    } finally {
      await Promise.all(nodes.map((db) => closeDatabase(db)));
    }
  });
});
