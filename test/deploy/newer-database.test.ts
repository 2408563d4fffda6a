// A node of the previous release on a database the next release migrated (src/storage/newer-database.ts):
// it starts when every migration it does not know is an expand step, and refuses, naming them,
// when one is a contract step. Run on a database of the test's own: the suite's shared database
// must not carry made-up migrations.
import { expect } from 'chai';
import { migrations } from '../../db/migrations/index.ts';
import { closeDatabase, migrate, openDatabase, type Database } from '../../src/storage/database.ts';
import { admitNewerDatabase, appliedMigrations, DatabaseTooNewError, newerMigrations } from '../../src/storage/newer-database.ts';
import { ownDatabase, type EmptyDatabase } from '../support/empty-database.ts';
import { testDatabase } from '../support/environment.ts';

const KNOWN = migrations.map(([name]) => name);

describe('a node on a database migrated by a newer release', function () {
  this.timeout(60_000);
  let own: EmptyDatabase | undefined;
  let db: Database;

  before(async () => {
    if (testDatabase().kind === 'postgres') own = await ownDatabase('newer_release');
    db = await openDatabase({ databaseUrl: own?.url, dataDir: ':memory:' });
  });

  after(async () => {
    await closeDatabase(db);
    await own?.drop();
  });

  const record = (name: string) => db('knex_migrations').insert({ name, batch: 99, migration_time: new Date() });

  it('when the database was never migrated, then nothing is unknown', async () => {
    expect(await appliedMigrations(db)).to.deep.equal([]);
    expect(await admitNewerDatabase(db, KNOWN)).to.deep.equal([]);
  });

  it('when the database has exactly this release, then nothing is unknown', async () => {
    await migrate(db);
    expect(await appliedMigrations(db)).to.deep.equal(KNOWN);
    expect(await admitNewerDatabase(db, KNOWN)).to.deep.equal([]);
  });

  it('when the next release added expand steps, then the node is admitted and logs them', async () => {
    await record('20270101_050_sms_campaign');
    await record('20270101_051_campaign_index');
    const warnings: unknown[][] = [];
    const logger = { warn: (...args: unknown[]) => warnings.push(args) } as never;
    expect(await admitNewerDatabase(db, KNOWN, logger)).to.deep.equal(['20270101_050_sms_campaign', '20270101_051_campaign_index']);
    expect(warnings).to.have.length(1);
    expect(warnings[0]![0]).to.deep.equal({ migrations: ['20270101_050_sms_campaign', '20270101_051_campaign_index'] });
  });

  it('when the node starts on it (the migrations run), then it applies nothing and goes on', async () => {
    expect(await migrate(db)).to.deep.equal([]);
  });

  it('when a release after that added a contract step, then the node refuses to start, naming it', async () => {
    await record('20270201_052_contract_sms_phone');
    const refusal = await admitNewerDatabase(db, KNOWN).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).to.be.instanceOf(DatabaseTooNewError);
    expect((refusal as DatabaseTooNewError).contracts).to.deep.equal(['20270201_052_contract_sms_phone']);
    expect((refusal as Error).message).to.contain('20270201_052_contract_sms_phone');
    const started = await migrate(db).then(
      () => 'started',
      (error: unknown) => error,
    );
    expect(started, 'the node starting on it').to.be.instanceOf(DatabaseTooNewError);
  });

  it('when the node knows the contract step, then it has nothing to refuse', async () => {
    const later = [...KNOWN, '20270101_050_sms_campaign', '20270101_051_campaign_index', '20270201_052_contract_sms_phone'];
    expect(await admitNewerDatabase(db, later)).to.deep.equal([]);
  });

  it('judges names alone: only `<date>_<nnn>_contract_` names are contract steps', () => {
    expect(newerMigrations(['a', '20270101_050_contracts_page', '20270101_051_contract_x'], ['a'])).to.deep.equal({
      unknown: ['20270101_050_contracts_page', '20270101_051_contract_x'],
      contracts: ['20270101_051_contract_x'],
    });
  });
});
