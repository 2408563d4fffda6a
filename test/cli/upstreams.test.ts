// `sms-gateway upstreams ...` and `sms-gateway routes ...`, run as real child processes: an
// upstream made with its password from a file (never shown), listed, shown with this month's
// figures, changed, disabled; routes naming it set and read back; its deletion refused while the
// routes name it and allowed once they do not; bad input refused in the API's words, with a
// non-zero exit and no stack trace. On PostgreSQL a gateway shares the database and the secret
// key: it binds to an SMSC with the password the command sealed, within its 5-second reread of
// the upstreams, and acts on the command's later changes the same way. On PGlite the commands get
// a data directory of their own, which no gateway can share while they run.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { expectOk, expectRefused, jsonOf, killChildren, REPO_ROOT, runCli, tempDataDir, type CliResult, type Env } from '../support/cli.ts';
import { testDatabase, testDatabaseUrl } from '../support/environment.ts';
import { eventually } from '../support/eventually.ts';
import { startGateway } from '../support/gateway.ts';
import { ApiClient } from '../support/tenant.ts';
import { TestSmsc } from '../support/test-smsc.ts';
import { webhookConfig } from '../support/webhooks.ts';

const onPostgres = testDatabase().kind === 'postgres';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The gateway rereads upstreams every 5 s; a child process's start adds to that. */
const REREAD = 12_000;

/** Runs the command with `input` on its stdin (runCli gives it none). */
function runWithStdin(args: string[], env: Env, input: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'sms-gateway.js'), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: undefined, DATA_DIR: undefined, REDIS_URL: undefined, ...env } as NodeJS.ProcessEnv,
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
    child.stdin.end(input);
  });
}

describe('sms-gateway upstreams and routes', function () {
  // A few commands a test, each of which compiles dist/ first when the sources changed.
  this.timeout(120_000);

  const secretKey = randomBytes(32).toString('hex');
  const files = tempDataDir('cli-upstreams-files');
  let removeDataDir = () => {};
  let env: Env;
  let gateway: Gateway | undefined;
  let smsc: TestSmsc | undefined;
  let api: ApiClient | undefined;
  let account: string;
  // SMPP passwords are at most 8 characters.
  const password = `p${randomBytes(4).toString('hex').slice(0, 7)}`;
  const authToken = `tok_${randomBytes(12).toString('hex')}`;
  const passwordFile = join(files.dir, 'password');
  let carrier: string;
  let twilio: string;

  const cli = (...args: string[]) => runCli(args, env);
  const file = (name: string, content: unknown) => {
    const path = join(files.dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const expectNoSecret = (result: CliResult) => {
    for (const secret of [password, authToken]) expect(result.stdout + result.stderr, result.transcript).not.to.contain(secret);
  };

  before(async function () {
    this.timeout(120_000);
    writeFileSync(passwordFile, `${password}\n`);
    if (onPostgres) {
      smsc = await TestSmsc.start();
      smsc.password = password;
      env = { DATABASE_URL: testDatabaseUrl(), WEBHOOK_SECRET_KEY: secretKey };
      // The same key as the commands', so that it opens the password they seal; the SMSC is on 127.0.0.1.
      gateway = await startGateway({ webhooks: webhookConfig({ allowedHosts: ['127.0.0.1'], secretKey: Buffer.from(secretKey, 'hex') }) });
    } else {
      const dataDir = tempDataDir('cli-upstreams');
      removeDataDir = dataDir.remove;
      env = { DATA_DIR: dataDir.dir };
    }
    account = `cli-upstreams-${randomBytes(4).toString('hex')}`;
    expectOk(await runCli(['accounts', 'create', account], env, 100_000));
    if (gateway) {
      const key = await cli('keys', 'create', '--account', account, '--permissions', 'upstreams:read', '--json');
      expectOk(key);
      api = new ApiClient(`http://127.0.0.1:${gateway.httpPort}/api/ext/v1`, jsonOf(key).key as string);
    }
  });

  after(async () => {
    killChildren();
    await gateway?.stop();
    await smsc?.stop();
    removeDataDir();
    files.remove();
  });

  const linkOnGateway = async (id: string) => (await api!.get(`/upstreams/${id}`)).body.link as { state: string; detail: string | null };

  it('upstreams create: the password from --secret-file is sealed, never shown; a running gateway (PostgreSQL) binds with it', async () => {
    const settings = file('carrier.json', {
      name: 'carrier',
      kind: 'smpp',
      host: smsc ? '127.0.0.1' : 'smsc.example.net',
      port: smsc?.port ?? 2775,
      system_id: 'gateway',
      price_per_segment: 0.02,
      monthly_budget: 50,
    });
    const result = await cli('upstreams', 'create', '--account', account, '--settings-file', settings, '--secret-file', passwordFile, '--json');
    expectOk(result);
    expectNoSecret(result);
    const body = jsonOf(result);
    expect(body.id).to.match(UUID);
    expect(body).to.include({ name: 'carrier', kind: 'smpp', system_id: 'gateway', enabled: true, price_per_segment: 0.02, monthly_budget: 50 });
    expect(body).not.to.have.any.keys('password', 'link');
    carrier = body.id;
    if (smsc) {
      await eventually('the gateway bound to the SMSC with the password', () => smsc!.binds.some((bind) => bind.password === password), REREAD, 100);
      await eventually('its link ready', async () => (await linkOnGateway(carrier)).state === 'ready', REREAD, 100);
    }
  });

  it('upstreams create: a twilio upstream with its auth token on stdin, told in text', async () => {
    const settings = JSON.stringify({ name: 'twilio', kind: 'twilio', base_url: 'https://api.twilio.example', account_sid: 'AC0123', from: '+15005550006', enabled: false });
    const result = await runWithStdin(['upstreams', 'create', '--account', account, '--settings', settings, '--secret-stdin'], env, `${authToken}\n`);
    expectOk(result);
    expectNoSecret(result);
    const id = /^upstream (\S+) created: twilio \(twilio, disabled\)$/m.exec(result.stdout)?.[1];
    expect(id, result.transcript).to.match(UUID);
    twilio = id!;
  });

  it('upstreams list: both, with their state and this month\'s spend', async () => {
    const json = await cli('upstreams', 'list', '--account', account, '--json');
    expectOk(json);
    const rows = jsonOf(json) as { id: string; name: string; enabled: boolean }[];
    expect(rows.map((row) => [row.id, row.name, row.enabled])).to.deep.equal([
      [carrier, 'carrier', true],
      [twilio, 'twilio', false],
    ]);
    const text = await cli('upstreams', 'list', '--account', account);
    expectOk(text);
    expect(text.stdout).to.match(new RegExp(`^${carrier} +carrier +smpp +enabled +0 +0 of 50$`, 'm'));
    expect(text.stdout).to.match(new RegExp(`^${twilio} +twilio +twilio +disabled +0 +0$`, 'm'));
    expectNoSecret(text);
  });

  it('upstreams show: the settings and this month\'s segments and spend, without the secret', async () => {
    const json = await cli('upstreams', 'show', '--account', account, carrier, '--json');
    expectOk(json);
    const body = jsonOf(json);
    expect(body.month).to.deep.equal({ month: new Date().toISOString().slice(0, 7), segments: 0, spent: 0, budget_left: 50 });
    expect(body).not.to.have.any.keys('password', 'link');
    const text = await cli('upstreams', 'show', '--account', account, carrier.toUpperCase());
    expectOk(text);
    expect(text.stdout).to.contain(`upstream ${carrier}: carrier (smpp, enabled)`);
    expect(text.stdout).to.match(/^system_id +gateway$/m);
    expect(text.stdout).to.match(/^this month +\d{4}-\d{2}: 0 segments, spent 0 of 50$/m);
    expectNoSecret(text);
  });

  it('upstreams update: settings from --settings, a new secret from a file; a running gateway binds again', async () => {
    const bindsBefore = smsc?.binds.length ?? 0;
    const changed = await cli('upstreams', 'update', '--account', account, carrier, '--settings', '{"monthly_budget": 70, "prefix_prices": [{"prefix": "+44", "price": 0.05}]}', '--secret-file', passwordFile, '--json');
    expectOk(changed);
    expectNoSecret(changed);
    expect(jsonOf(changed)).to.deep.include({ monthly_budget: 70, prefix_prices: [{ prefix: '+44', price: 0.05 }], port: smsc?.port ?? 2775 });
    if (smsc) await eventually('the gateway bound again with the changed upstream', () => smsc!.binds.length > bindsBefore, REREAD, 100);
  });

  it('upstreams disable and enable: the flag the routes and the links go by', async () => {
    const disabled = await cli('upstreams', 'disable', '--account', account, carrier, '--json');
    expectOk(disabled);
    expect(jsonOf(disabled).enabled).to.equal(false);
    if (api) await eventually('the gateway closed its link', async () => (await linkOnGateway(carrier)).state === 'closed', REREAD, 100);
    const enabled = await cli('upstreams', 'enable', '--account', account, carrier);
    expectOk(enabled);
    expect(enabled.stdout).to.contain(`upstream ${carrier} (carrier) enabled`);
    if (api) await eventually('the gateway bound again', async () => (await linkOnGateway(carrier)).state === 'ready', REREAD, 100);
  });

  it('routes set and show: a rule naming the upstream, read back as set and told by its name', async () => {
    const routes = [{ target: 'phones', after_seconds: 60 }, { target: carrier.toUpperCase(), prefixes: ['+44'], categories: ['otp'] }];
    const set = await cli('routes', 'set', '--account', account, '--file', file('routes.json', { routes }), '--json');
    expectOk(set);
    expect(jsonOf(set).routes).to.deep.equal([{ target: 'phones', after_seconds: 60 }, { target: carrier, prefixes: ['+44'], categories: ['otp'] }]);
    const json = await cli('routes', 'show', '--account', account, '--json');
    expectOk(json);
    expect(jsonOf(json).routes).to.deep.equal(jsonOf(set).routes);
    expect(jsonOf(json).updated_at).to.be.a('string');
    const text = await cli('routes', 'show', '--account', account);
    expectOk(text);
    expect(text.stdout).to.equal(`1. phones: for 60 s\n2. upstream carrier (${carrier}): to +44, category otp\n`);
  });

  it('upstreams delete: refused while the routes name it, allowed once they are cleared', async () => {
    const refused = await cli('upstreams', 'delete', '--account', account, carrier);
    expectRefused(refused, 1);
    expect(refused.stderr).to.contain(`the routes of account ${account} name upstream ${carrier}`).and.to.contain('routes clear');
    expectOk(await cli('upstreams', 'show', '--account', account, carrier));

    const unbindsBefore = smsc?.unbinds.length ?? 0;
    const cleared = await cli('routes', 'clear', '--account', account, '--json');
    expectOk(cleared);
    expect(jsonOf(cleared)).to.deep.equal({ routes: [], updated_at: null });
    const deleted = await cli('upstreams', 'delete', '--account', account, carrier, '--json');
    expectOk(deleted);
    expect(jsonOf(deleted)).to.deep.equal({ deleted: carrier });
    const gone = await cli('upstreams', 'show', '--account', account, carrier);
    expectRefused(gone, 1);
    expect(gone.stderr).to.contain(`error: account ${account} has no upstream ${carrier}\n`);
    if (smsc) await eventually('the gateway unbound from the SMSC', () => smsc!.unbinds.length > unbindsBefore, REREAD, 100);
  });

  describe('bad input: a clear message, a non-zero exit, no stack trace', () => {
    const randomId = '7d3c9a52-0b6e-4f4b-9a39-3f1f2f0b4c11';
    const cases: [string, () => string[], RegExp][] = [
      ['an unknown kind', () => ['upstreams', 'create', '--account', account, '--settings', '{"name": "x", "kind": "mms"}'], /^error: --settings refused: kind must be one of: smpp, twilio$/m],
      ['a required setting missing, as the API names it', () => ['upstreams', 'create', '--account', account, '--settings', '{"name": "x", "kind": "smpp", "port": 1, "system_id": "a"}', '--secret-file', passwordFile], /host is required for a smpp upstream/],
      ['a wrong type', () => ['upstreams', 'create', '--account', account, '--settings', '{"name": "x", "kind": "smpp", "port": "2775"}'], /port must be an integer/],
      ['settings that are not JSON', () => ['upstreams', 'create', '--account', account, '--settings', '{"name": '], /^error: --settings is not valid JSON/m],
      // The parser's message quotes the text where it broke: the password must not reach the terminal.
      ['a settings file broken right at its password', () => ['upstreams', 'create', '--account', account, '--settings-file', file('broken-secret.json', `{"name": "x", "kind": "smpp", "password": ${password}"}`)], /is not valid JSON/],
      ['a settings file that is not there', () => ['upstreams', 'create', '--account', account, '--settings-file', join(files.dir, 'absent.json')], /absent\.json: no such file/],
      // The secret comes apart from the settings: its refusal names the flag that gave it.
      ['a password too long in --secret-file', () => ['upstreams', 'create', '--account', account, '--settings-file', file('carrier-no-secret.json', { name: 'long', kind: 'smpp', host: 'smsc.example.net', port: 2775, system_id: 'a' }), '--secret-file', file('long-password', `${'p'.repeat(65)}\n`)], /^error: --secret-file \S+long-password refused: password must be at most 64 characters$/m],
      ['a new auth token too long in --secret-file', () => ['upstreams', 'update', '--account', account, twilio, '--secret-file', file('long-token', `${'t'.repeat(129)}\n`)], /^error: --secret-file \S+long-token refused: auth_token must be at most 128 characters$/m],
      ['a password on the command line', () => ['upstreams', 'create', '--account', account, '--settings', `{"name": "x", "kind": "smpp", "password": "${password}"}`], /--settings may not carry password/],
      ['an id that is no UUID', () => ['upstreams', 'show', '--account', account, 'carrier'], /"carrier" is not an upstream id \(a UUID\)/],
      ['an unknown id', () => ['upstreams', 'update', '--account', account, randomId, '--settings', '{"port": 2}'], new RegExp(`has no upstream ${randomId}`)],
      ['an unknown account', () => ['upstreams', 'list', '--account', `${account}-nobody`], /no account named/],
      ['a route to no upstream of the account', () => ['routes', 'set', '--account', account, '--file', file('unknown-target.json', { routes: [{ target: randomId }] })], /routes\.0\.target is "7d3c9a52-0b6e-4f4b-9a39-3f1f2f0b4c11", which is neither "phones".* nor an upstream of the account/],
      ['a route field the API does not know', () => ['routes', 'set', '--account', account, '--file', file('unknown-field.json', { routes: [{ target: 'phones', after: 5 }] })], /routes\.0\.after is not a known field/],
      ['routes that are not JSON', () => ['routes', 'set', '--account', account, '--file', file('broken.json', '{"routes": [')], /is not valid JSON/],
    ];
    for (const [what, args, message] of cases) {
      it(what, async () => {
        const result = await cli(...args());
        expectRefused(result);
        expect(result.stderr, result.transcript).to.match(message);
        expectNoSecret(result);
      });
    }
  });
});
