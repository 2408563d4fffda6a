// Every process on one database must hold the key that seals webhook and Twilio secrets. A
// command run with another DATA_DIR (so another key file) or another WEBHOOK_SECRET_KEY is
// refused before it seals anything, with a message naming both, and so is a gateway node.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import knexModule from 'knex';
import { GatewayProcess, expectRefused, jsonOf, killChildren, runCli, tempDataDir, type Env } from '../support/cli.ts';
import { testDatabase } from '../support/environment.ts';
import { ownDatabase, type EmptyDatabase } from '../support/empty-database.ts';
import { removeSecretKeyCheck, secretKeyCheckCount } from '../support/test-data.ts';

describe('cli: the secret key is checked against the database', function () {
  this.timeout(90_000);
  const postgres = testDatabase().kind === 'postgres';
  const first = tempDataDir('key-first');
  const other = tempDataDir('key-other');
  const account = `key-check-${randomBytes(4).toString('hex')}`;
  let env: Env;

  // A PostgreSQL database of its own: the suite's shared one takes any key (test/support/hooks.ts).
  let database: EmptyDatabase | undefined;

  before(async () => {
    if (postgres) database = await ownDatabase('key_check');
    env = database ? { DATABASE_URL: database.url, DATA_DIR: first.dir } : { DATA_DIR: first.dir };
    const created = await runCli(['accounts', 'create', account], env, 80_000);
    expect(created.code, created.transcript).to.equal(0);
  });
  after(async () => {
    killChildren();
    await database?.drop();
    first.remove();
    other.remove();
  });

  const expectKeyRefusal = (result: Awaited<ReturnType<typeof runCli>>) => {
    expectRefused(result, 1);
    expect(result.stderr, result.transcript).to.contain('DATA_DIR').and.to.contain('WEBHOOK_SECRET_KEY');
    expect(result.stderr, result.transcript).to.contain('is not the one this database\'s secrets were sealed with');
  };

  const credentials = async () => jsonOf(await runCli(['twilio', 'credentials', 'list', '--account', account, '--json'], env)) as unknown[];

  it('when a command runs with another DATA_DIR against the same PostgreSQL database, then it is refused and seals nothing', async function () {
    if (!postgres) this.skip(); // with PGlite, DATA_DIR holds the database too: another one is another database
    const refused = await runCli(['twilio', 'credentials', 'create', '--account', account, '--name', 'elsewhere'], { ...env, DATA_DIR: other.dir });
    expectKeyRefusal(refused);
    expect(await credentials()).to.deep.equal([]);
    expect(existsSync(join(other.dir, 'webhook-secret.key')), 'a key file left in the other DATA_DIR').to.equal(false);
    expect(existsSync(join(first.dir, 'webhook-secret.key')), 'the key the database accepted is kept').to.equal(true);
  });

  it('when a command runs with another WEBHOOK_SECRET_KEY, then it is refused and seals nothing', async () => {
    const refused = await runCli(['webhooks', 'create', '--account', account, '--url', 'https://example.com/hook', '--events', 'all'], { ...env, WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex') });
    expectKeyRefusal(refused);
    const made = await runCli(['twilio', 'credentials', 'create', '--account', account, '--name', 'same key'], env);
    expect(made.code, made.transcript).to.equal(0);
    expect(await credentials()).to.have.length(1);
  });

  it('when a gateway node starts with another DATA_DIR against the same PostgreSQL database, then it refuses to start, naming both', async function () {
    if (!postgres) this.skip();
    const node = new GatewayProcess(['serve'], { DATABASE_URL: database!.url, DATA_DIR: other.dir, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info' });
    const exit = await node.waitForExit(60_000);
    expect(exit.code, node.transcript()).to.not.equal(0);
    expect(node.stdout + node.stderr, node.transcript()).to.contain('WEBHOOK_SECRET_KEY').and.to.contain('is not the one this database\'s secrets were sealed with');
  });
  it('when a database from before the check holds secrets, then a key that opens none of them is refused and the right one records the check', async function () {
    if (!postgres) this.skip();
    const made = await runCli(['twilio', 'credentials', 'create', '--account', account, '--name', 'before the check'], env);
    expect(made.code, made.transcript).to.equal(0);
    const db = knexModule.knex({ client: 'pg', connection: database!.url, pool: { min: 0, max: 1 } });
    const checks = () => secretKeyCheckCount(db);
    try {
      await removeSecretKeyCheck(db);
      expectKeyRefusal(await runCli(['twilio', 'credentials', 'list', '--account', account], { ...env, DATA_DIR: other.dir }));
      expect(await checks()).to.equal(0);
      const listed = await runCli(['twilio', 'credentials', 'list', '--account', account], env);
      expect(listed.code, listed.transcript).to.equal(0);
      expect(await checks()).to.equal(1);
    } finally {
      await db.destroy();
    }
  });
});
