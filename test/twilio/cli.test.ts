// `sms-gateway twilio credentials create|list|delete`, run as a real child process on the
// suite's database (PostgreSQL) or a fresh data directory (PGlite).
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { jsonOf, killChildren, runCli, tempDataDir, type Env } from '../support/cli.ts';
import { testDatabase, testDatabaseUrl } from '../support/environment.ts';

describe('twilio: command line', function () {
  this.timeout(90_000);
  let env: Env;
  let removeDataDir = () => {};
  const account = `cli-twilio-${randomBytes(4).toString('hex')}`;
  const cli = (...args: string[]) => runCli(args, env);

  before(async () => {
    if (testDatabase().kind === 'postgres') env = { DATABASE_URL: testDatabaseUrl() };
    else {
      const dataDir = tempDataDir('twilio-cli');
      removeDataDir = dataDir.remove;
      env = { DATA_DIR: dataDir.dir };
    }
    const created = await runCli(['accounts', 'create', account], env, 80_000);
    expect(created.code, created.transcript).to.equal(0);
  });
  after(() => {
    killChildren();
    removeDataDir();
  });

  it('creates a credential (the token printed once), lists it without the token, deletes it', async () => {
    const created = await cli('twilio', 'credentials', 'create', '--account', account, '--name', 'from cli');
    expect(created.code, created.transcript).to.equal(0);
    const sid = /AC[0-9a-f]{32}/.exec(created.stdout)?.[0];
    const token = /AuthToken\s+([0-9a-f]{32})/.exec(created.stdout)?.[1];
    expect(sid, created.transcript).to.be.a('string');
    expect(token, created.transcript).to.be.a('string');
    expect(created.stdout.split(token!).length - 1).to.equal(1);
    expect(created.stderr).not.to.contain(token!);

    const listed = await cli('twilio', 'credentials', 'list', '--account', account, '--json');
    expect(listed.code, listed.transcript).to.equal(0);
    const rows = jsonOf(listed) as { account_sid: string; friendly_name: string }[];
    expect(rows.map((row) => row.account_sid)).to.deep.equal([sid]);
    expect(rows[0]!.friendly_name).to.equal('from cli');
    expect(listed.stdout).not.to.contain(token!);

    const deleted = await cli('twilio', 'credentials', 'delete', sid!);
    expect(deleted.code, deleted.transcript).to.equal(0);
    expect(jsonOf(await cli('twilio', 'credentials', 'list', '--account', account, '--json'))).to.deep.equal([]);
    const again = await cli('twilio', 'credentials', 'delete', sid!);
    expect(again.code).to.equal(1);
  });

  it('refuses a malformed command with its usage', async () => {
    const result = await cli('twilio', 'credentials', 'delete', 'not-a-sid');
    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('usage:');
  });
});
