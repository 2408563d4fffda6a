// `sms-gateway users create|list|reset-password` (the password from stdin, or generated and
// printed once), run as a real child process. On PostgreSQL the commands share the suite's
// database with an in-process gateway, so the passwords they set are tried by logging in over
// HTTP; on PGlite the commands get a fresh data directory that a gateway cannot share, so
// logins are checked on PostgreSQL only.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { expectRefused, jsonOf, killChildren, REPO_ROOT, runCli, tempDataDir, type CliResult, type Env } from '../support/cli.ts';
import { testDatabase, testDatabaseUrl } from '../support/environment.ts';
import { startGateway } from '../support/gateway.ts';
import { ApiClient } from '../support/tenant.ts';
import { loginAs } from '../support/session-client.ts';
import { expectError } from '../support/expectations.ts';

const onPostgres = testDatabase().kind === 'postgres';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ONE_TIME = /^[A-Za-z0-9_-]{24}$/;

function uniqueEmail(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}@example.com`;
}

/** Runs the command with `input` piped on its stdin (runCli gives it none); null: a stdin left open. */
function runWithStdin(args: string[], env: Env, input: string | null): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'sms-gateway.js'), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: undefined, DATA_DIR: undefined, ...env } as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, transcript: `sms-gateway ${args.join(' ')}\n--- stdout\n${stdout}\n--- stderr\n${stderr}` });
    });
    if (input === null) child.once('close', () => child.stdin.destroy());
    else child.stdin.end(input);
  });
}

describe('sms-gateway users', function () {
  this.timeout(30_000);

  let env: Env;
  let removeDataDir = () => {};
  let gateway: Gateway | undefined;
  let account: string;

  const cli = (...args: string[]) => runCli(args, env);
  const login = (email: string, password: string) =>
    new ApiClient(`http://127.0.0.1:${gateway!.httpPort}/api/ext/v1`, undefined).post('/session', { email, password });

  before(async function () {
    this.timeout(90_000);
    if (onPostgres) {
      env = { DATABASE_URL: testDatabaseUrl() };
      gateway = await startGateway();
    } else {
      const dataDir = tempDataDir('cli-users');
      removeDataDir = dataDir.remove;
      env = { DATA_DIR: dataDir.dir };
    }
    account = `cli-users-${randomBytes(4).toString('hex')}`;
    const created = await runCli(['accounts', 'create', account], env, 80_000);
    expect(created.code, created.transcript).to.equal(0);
  });

  after(async () => {
    killChildren();
    await gateway?.stop();
    removeDataDir();
  });

  describe('users create', () => {
    it('without a piped password, prints a generated one-time password once, which must be changed at first login', async () => {
      const email = uniqueEmail('generated');
      const result = await cli('users', 'create', '--account', account, '--email', email);
      expect(result.code, result.transcript).to.equal(0);
      const password = /^ {2}([A-Za-z0-9_-]{24})$/m.exec(result.stdout)?.[1];
      expect(password, result.transcript).to.match(ONE_TIME);
      expect(result.stdout.split(password!).length - 1, 'printed exactly once').to.equal(1);
      expect(result.stdout).to.contain('must be changed at first login');
      expect(result.stderr).to.not.contain(password!);
      if (gateway) {
        const session = await login(email, password!);
        expect(session.status).to.equal(200);
        expect(session.body.user).to.include({ email, role: 'owner', must_change_password: true });
      }
    });

    it('with --json, --role viewer and --admin, answers one JSON document with the user and its one-time password', async () => {
      const email = uniqueEmail('Json').toUpperCase();
      const result = await cli('users', 'create', '--account', account, '--email', email, '--role', 'viewer', '--admin', '--json');
      expect(result.code, result.transcript).to.equal(0);
      const body = jsonOf(result);
      expect(body).to.have.all.keys('id', 'email', 'account', 'role', 'is_admin', 'must_change_password', 'one_time_password');
      expect(body.id).to.match(UUID);
      expect(body).to.include({ email: email.toLowerCase(), account, role: 'viewer', is_admin: true, must_change_password: true });
      expect(body.one_time_password).to.match(ONE_TIME);
    });

    it('with a password piped on stdin, uses it: nothing is printed to keep, nothing must be changed', async () => {
      const email = uniqueEmail('piped');
      const password = 'piped in, never in argv';
      const result = await runWithStdin(['users', 'create', '--account', account, '--email', email, '--password-stdin', '--json'], env, `${password}\n`);
      expect(result.code, result.transcript).to.equal(0);
      const body = jsonOf(result);
      expect(body).to.not.have.property('one_time_password');
      expect(body.must_change_password).to.equal(false);
      expect(result.stdout + result.stderr).to.not.contain(password);
      if (gateway) {
        const session = await login(email, password);
        expect(session.status).to.equal(200);
        expect(session.body.user.must_change_password).to.equal(false);
      }
    });

    it('without --password-stdin, never reads stdin: an open stdin that never ends does not hold it, a one-time password is made', async () => {
      const result = await runWithStdin(['users', 'create', '--account', account, '--email', uniqueEmail('open-stdin'), '--json'], env, null);
      expect(result.code, result.transcript).to.equal(0);
      expect(jsonOf(result).one_time_password).to.match(ONE_TIME);
    });

    it('with --password-stdin and nothing on stdin, refuses and says how to pipe one', async () => {
      const result = await runWithStdin(['users', 'create', '--account', account, '--email', uniqueEmail('empty'), '--password-stdin'], env, '');
      expectRefused(result, 2);
      expect(result.stderr).to.contain('nothing was read from stdin');
    });

    it('refuses a piped password shorter than 12 characters', async () => {
      const result = await runWithStdin(['users', 'create', '--account', account, '--email', uniqueEmail('short'), '--password-stdin'], env, 'short\n');
      expectRefused(result, 1);
      expect(result.stderr).to.contain('at least 12 characters');
    });

    it('refuses an email that is taken (in any case), an unknown role, a malformed email and an unknown account', async () => {
      const email = uniqueEmail('taken');
      expect((await cli('users', 'create', '--account', account, '--email', email)).code).to.equal(0);
      const taken = await cli('users', 'create', '--account', account, '--email', email.toUpperCase());
      expectRefused(taken, 1);
      expect(taken.stderr).to.contain('already exists');
      const role = await cli('users', 'create', '--account', account, '--email', uniqueEmail('role'), '--role', 'admin');
      expectRefused(role, 2);
      expect(role.stderr).to.contain('--role must be one of owner, viewer');
      expectRefused(await cli('users', 'create', '--account', account, '--email', 'not-an-email'), 1);
      expectRefused(await cli('users', 'create', '--account', `${account}-missing`, '--email', uniqueEmail('acct')), 1);
      expectRefused(await cli('users', 'create', '--account', account), 2);
    });
  });

  describe('users list', () => {
    it('lists the account\'s users with role and state, never a password hash', async () => {
      const email = uniqueEmail('listed');
      expect((await cli('users', 'create', '--account', account, '--email', email, '--role', 'viewer')).code).to.equal(0);
      const result = await cli('users', 'list', '--account', account, '--json');
      expect(result.code, result.transcript).to.equal(0);
      const rows = jsonOf(result) as Record<string, unknown>[];
      const row = rows.find((each) => each.email === email);
      expect(row).to.include({ account, role: 'viewer', is_admin: false, must_change_password: true, last_login_at: null });
      for (const each of rows) expect(each).to.not.have.property('password_hash');
      expect(result.stdout).to.not.contain('scrypt$');
      const text = await cli('users', 'list', '--account', account);
      expect(text.stdout).to.match(new RegExp(`${email.replace('.', '\\.')}\\s+${account}\\s+viewer`));
    });
  });

  describe('users reset-password', () => {
    it('generates a one-time password, printed once, that replaces the old one and must be changed; the user\'s open sessions end', async () => {
      const email = uniqueEmail('reset');
      const created = await runWithStdin(['users', 'create', '--account', account, '--email', email, '--password-stdin'], env, 'the first password\n');
      expect(created.code, created.transcript).to.equal(0);
      // A session opened before the reset: the command, in a process of its own, must end it too.
      const before = gateway && (await loginAs(gateway, email, 'the first password'));
      const result = await cli('users', 'reset-password', email, '--json');
      expect(result.code, result.transcript).to.equal(0);
      const body = jsonOf(result);
      expect(body).to.include({ email, must_change_password: true });
      expect(body.one_time_password).to.match(ONE_TIME);
      if (gateway) {
        expectError(await before!.get('/sms'), 401, 'unauthorized');
        expect((await login(email, 'the first password')).status).to.equal(401);
        const session = await login(email, body.one_time_password);
        expect(session.status).to.equal(200);
        expect(session.body.user.must_change_password).to.equal(true);
      }
    });

    it('takes a piped password instead, which must still be changed at the next login', async () => {
      const email = uniqueEmail('reset-piped');
      expect((await cli('users', 'create', '--account', account, '--email', email)).code).to.equal(0);
      const result = await runWithStdin(['users', 'reset-password', email, '--password-stdin', '--json'], env, 'an operator-chosen password');
      expect(result.code, result.transcript).to.equal(0);
      expect(jsonOf(result)).to.deep.include({ must_change_password: true }).and.not.have.property('one_time_password');
      if (gateway) expect((await login(email, 'an operator-chosen password')).body.user.must_change_password).to.equal(true);
    });

    it('refuses an unknown email, and no email', async () => {
      const unknown = await cli('users', 'reset-password', uniqueEmail('nobody'));
      expectRefused(unknown, 1);
      expect(unknown.stderr).to.contain('no user with email');
      expectRefused(await cli('users', 'reset-password'), 2);
    });
  });
});
