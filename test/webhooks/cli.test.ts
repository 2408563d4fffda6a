// `sms-gateway webhooks create|list|delete` (README, "Command line"), run as a real child
// process. On PostgreSQL the commands share the suite's database with an in-process gateway
// that has the same WEBHOOK_SECRET_KEY, so a webhook the command creates is seen by the API and
// its printed secret verifies a real delivery. On PGlite the commands get a fresh data
// directory of their own (a gateway cannot share it while it is locked).
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { expectOk, expectRefused, jsonOf, killChildren, runCli, STACK_FRAME, tempDataDir, type CliResult, type Env } from '../support/cli.ts';
import { testDatabase, testDatabaseUrl } from '../support/environment.ts';
import { startGateway } from '../support/gateway.ts';
import { connectDevice } from '../support/devices.ts';
import { Receiver } from '../support/receiver.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { UNKNOWN_ID, UUID } from '../support/expectations.ts';
import { ALL_EVENTS, createWebhook, dropWebhooks, expectWebhook, verified, webhookConfig } from '../support/webhooks.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';

const onPostgres = testDatabase().kind === 'postgres';
const SECRET = /whsec_[A-Za-z0-9+/]+={0,2}/;
const SECRET_KEY = randomBytes(32);
const URL_A = 'http://127.0.0.1:9/hooks/a';

describe('sms-gateway webhooks (command line)', function () {
  this.timeout(60_000);

  let env: Env;
  let removeDataDir = () => {};
  let gateway: Gateway | undefined;
  /** An account the commands below use; created through the command line. */
  let owner: { id: string; name: string };
  let accounts: string[] = [];

  const cli = (...args: string[]) => runCli(args, env);
  /** The webhooks of `account` as `webhooks list --json` shows them. */
  async function listed(account = owner.name): Promise<any[]> {
    const result = await cli('webhooks', 'list', '--account', account, '--json');
    expectOk(result);
    return jsonOf(result);
  }

  /** A fresh account: through the running gateway's services on PostgreSQL, the command line on PGlite. */
  async function newAccount(): Promise<{ id: string; name: string }> {
    const name = `cli-wh-${randomBytes(4).toString('hex')}`;
    if (gateway) {
      const account = await gateway.services.accounts.create(name);
      accounts.push(account.id);
      return { id: account.id, name };
    }
    const created = await runCli(['accounts', 'create', name, '--json'], env, 80_000);
    expectOk(created);
    return { id: jsonOf(created).id, name };
  }

  before(async function () {
    // The first command on an empty data directory creates the embedded database: slower.
    this.timeout(120_000);
    const common = { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_SECRET_KEY: SECRET_KEY.toString('hex') };
    if (onPostgres) {
      env = { DATABASE_URL: testDatabaseUrl(), ...common };
      gateway = await startGateway({ webhooks: webhookConfig({ secretKey: SECRET_KEY }) });
    } else {
      const dataDir = tempDataDir('cli-webhooks');
      removeDataDir = dataDir.remove;
      env = { DATA_DIR: dataDir.dir, ...common };
    }
    // The first command on an empty data directory creates the embedded database.
    if (!gateway) expectOk(await runCli(['migrate'], env, 80_000));
  });

  // A fresh account per test, so each test sees only its own webhooks.
  beforeEach(async () => {
    owner = await newAccount();
  });

  afterEach(async () => {
    killChildren();
    if (gateway) await dropWebhooks(gateway, accounts);
    accounts = [];
  });

  after(async () => {
    killChildren();
    await gateway?.stop();
    removeDataDir();
  });

  describe('webhooks create', () => {
    it('when account, url and events are given, then it prints the webhook id, url, events and the secret, once', async () => {
      const result = await cli('webhooks', 'create', '--account', owner.name, '--url', URL_A, '--events', 'sms.status_changed,device.online');
      expectOk(result);
      const id = new RegExp(`webhook (${UUID.source.slice(1, -1)}) created for ${URL_A.replace(/[.]/g, '\\.')}`).exec(result.stdout)?.[1];
      expect(id, result.transcript).to.be.a('string');
      expect(result.stdout).to.contain('events: sms.status_changed, device.online');
      const secret = SECRET.exec(result.stdout)?.[0];
      expect(secret, result.transcript).to.be.a('string');
      expect(result.stdout.split(secret!).length - 1, 'the secret is printed once').to.equal(1);
      expect(result.stdout).to.match(/shown once/);

      const [webhook] = await listed();
      expect(webhook).to.include({ id, url: URL_A, enabled: true });
      expect(webhook.events).to.have.members(['sms.status_changed', 'device.online']);
    });

    it('when --json is given, then stdout is one JSON document with the webhook and its secret', async () => {
      const result = await cli('webhooks', 'create', '--account', owner.name, '--url', URL_A, '--events', 'all', '--description', 'billing', '--json');
      expectOk(result);
      const body = jsonOf(result);
      expect(Object.keys(body)).to.have.members(['webhook', 'secret']);
      expectWebhook(body.webhook);
      expect(body.webhook).to.include({ url: URL_A, description: 'billing', enabled: true, disabled_reason: null, consecutive_failures: 0 });
      expect(body.webhook.events).to.have.members([...ALL_EVENTS]);
      expect(body.secret).to.match(new RegExp(`^${SECRET.source}$`));
    });

    it('when --events names an unknown event, then it exits non-zero, names it, and creates nothing', async () => {
      const result = await cli('webhooks', 'create', '--account', owner.name, '--url', URL_A, '--events', 'device.online,sms.exploded');
      expectRefused(result);
      expect(result.stderr).to.contain('sms.exploded');
      expect(result.stderr).to.match(/unknown event/);
      expect(await listed()).to.deep.equal([]);
    });

    for (const [label, args] of [
      ['--url is missing', ['--account', 'x', '--events', 'all']],
      ['--events is missing', ['--account', 'x', '--url', URL_A]],
      ['--account is missing', ['--url', URL_A, '--events', 'all']],
    ] as const) {
      it(`when ${label}, then it exits 2 and says which flags are needed`, async () => {
        const result = await cli('webhooks', 'create', ...args);
        expectRefused(result, 2);
        expect(result.stderr).to.contain('needs --account, --url and --events');
        expect(result.stderr).to.contain('usage:');
      });
    }

    it('when the account does not exist, then it exits non-zero and says so', async () => {
      const result = await cli('webhooks', 'create', '--account', 'no-such-account-here', '--url', URL_A, '--events', 'all');
      expectRefused(result);
      expect(result.stderr).to.contain('no account named "no-such-account-here"');
    });

    it('when the url points at a loopback address and WEBHOOK_ALLOWED_HOSTS is not set, then it exits non-zero and says why', async () => {
      const result = await runCli(['webhooks', 'create', '--account', owner.name, '--url', 'http://127.0.0.1:8080/x', '--events', 'all'], {
        ...env,
        WEBHOOK_ALLOWED_HOSTS: undefined,
      });
      expectRefused(result);
      expect(result.stderr).to.match(/loopback/);
      expect(await listed()).to.deep.equal([]);
    });

    it('when the url points at a private or metadata address outside WEBHOOK_ALLOWED_HOSTS, then it exits non-zero', async () => {
      for (const url of ['http://10.0.0.1/x', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/x', 'ftp://example.com/x']) {
        const result = await cli('webhooks', 'create', '--account', owner.name, '--url', url, '--events', 'all');
        expectRefused(result);
        expect(result.stderr).to.match(/url/);
      }
      expect(await listed()).to.deep.equal([]);
    });

    it('when a command fails with --json, then the error is one JSON document on stderr', async () => {
      const result = await cli('webhooks', 'create', '--account', owner.name, '--url', URL_A, '--events', 'nope', '--json');
      expectRefused(result);
      const error = JSON.parse(result.stderr);
      expect(Object.keys(error)).to.deep.equal(['error']);
      expect(error.error.message).to.contain('nope');
    });
  });

  describe('webhooks list', () => {
    it('when the account has webhooks, then it shows each with id, url, events and state, and never a secret', async () => {
      const created = jsonOf(await cli('webhooks', 'create', '--account', owner.name, '--url', URL_A, '--events', 'device.online', '--json'));
      const result = await cli('webhooks', 'list', '--account', owner.name);
      expectOk(result);
      expect(result.stdout).to.match(/ID\s+URL\s+EVENTS\s+STATE/);
      const row = result.stdout.split('\n').find((line) => line.startsWith(created.webhook.id));
      expect(row, result.transcript).to.be.a('string');
      expect(row).to.contain(URL_A).and.contain('device.online').and.contain('enabled');
      expect(result.stdout).not.to.contain(created.secret);
      expect(result.stdout).not.to.match(SECRET);

      const json = await listed();
      expect(json).to.have.length(1);
      expectWebhook(json[0]);
      expect(json[0]).to.deep.equal(created.webhook);
      expect(JSON.stringify(json)).not.to.match(/secret/i);
    });

    it('when the account has no webhooks, then it says so (and --json prints an empty list)', async () => {
      const result = await cli('webhooks', 'list', '--account', owner.name);
      expectOk(result);
      expect(result.stdout.trim()).to.equal('(none)');
      expect(await listed()).to.deep.equal([]);
    });

    it("when another account has webhooks, then they are not listed", async () => {
      const other = await newAccount();
      expectOk(await cli('webhooks', 'create', '--account', other.name, '--url', URL_A, '--events', 'all'));
      expect(await listed()).to.deep.equal([]);
      expect(await listed(other.name)).to.have.length(1);
    });

    it('when --account is missing, then it exits 2 with the usage', async () => {
      const result = await cli('webhooks', 'list');
      expectRefused(result, 2);
      expect(result.stderr).to.contain('webhooks list needs --account');
    });
  });

  describe('webhooks delete', () => {
    it('when the id names a webhook of the account, then it exits 0, says so, and the webhook is gone', async () => {
      const created = jsonOf(await cli('webhooks', 'create', '--account', owner.name, '--url', URL_A, '--events', 'all', '--json'));
      const id = created.webhook.id as string;
      const result = await cli('webhooks', 'delete', '--account', owner.name, id);
      expectOk(result);
      expect(result.stdout).to.contain(`webhook ${id} deleted`);
      expect(await listed()).to.deep.equal([]);
      const again = await cli('webhooks', 'delete', '--account', owner.name, id);
      expectRefused(again);
      expect(again.stderr).to.match(/webhook not found/);
    });

    it('when --json is given, then it prints {"deleted": id}', async () => {
      const created = jsonOf(await cli('webhooks', 'create', '--account', owner.name, '--url', URL_A, '--events', 'all', '--json'));
      const result = await cli('webhooks', 'delete', '--account', owner.name, created.webhook.id, '--json');
      expectOk(result);
      expect(jsonOf(result)).to.deep.equal({ deleted: created.webhook.id });
    });

    it('when the id is unknown, then it exits non-zero and says the webhook was not found', async () => {
      const result = await cli('webhooks', 'delete', '--account', owner.name, UNKNOWN_ID);
      expectRefused(result);
      expect(result.stderr).to.match(/webhook not found/);
    });

    it("when the id is another account's webhook, then it exits non-zero and that webhook stays", async () => {
      const other = await newAccount();
      const theirs = jsonOf(await cli('webhooks', 'create', '--account', other.name, '--url', URL_A, '--events', 'all', '--json'));
      const result = await cli('webhooks', 'delete', '--account', owner.name, theirs.webhook.id);
      expectRefused(result);
      expect(result.stderr).to.match(/webhook not found/);
      expect((await listed(other.name)).map((webhook) => webhook.id)).to.deep.equal([theirs.webhook.id]);
    });

    it('when the id is not a UUID, then it exits 2 and says so', async () => {
      const result = await cli('webhooks', 'delete', '--account', owner.name, 'not-an-id');
      expectRefused(result, 2);
      expect(result.stderr).to.contain('"not-an-id" is not a webhook id');
    });

    it('when the id is missing, then it exits 2 with the usage', async () => {
      const result = await cli('webhooks', 'delete', '--account', owner.name);
      expectRefused(result, 2);
      expect(result.stderr).to.contain('webhooks delete needs --account and one webhook id');
    });
  });

  it('when the action is missing or unknown, then it exits 2 with the usage naming the events', async () => {
    for (const args of [['webhooks'], ['webhooks', 'frobnicate']]) {
      const result = await cli(...args);
      expectRefused(result, 2);
      expect(result.stderr).to.contain('sms-gateway webhooks create');
      for (const event of ALL_EVENTS) expect(result.stderr).to.contain(event);
    }
  });

  describe('with a running gateway on the same database (PostgreSQL)', () => {
    // An embedded data directory admits one process, so a gateway cannot run beside the command there.
    onlyOnPostgres();
    let receiver: Receiver | undefined;
    let device: SimulatedDevice | undefined;

    afterEach(async () => {
      await device?.stop();
      device = undefined;
      await receiver?.stop();
      receiver = undefined;
    });

    it('when the command creates a webhook, then the gateway delivers to it, signed with the secret the command printed', async () => {
      receiver = new Receiver();
      await receiver.start();
      const created = jsonOf(await cli('webhooks', 'create', '--account', owner.name, '--url', receiver.url, '--events', 'device.online', '--json'));
      // connectDevice needs only the account of the tenant it is given.
      device = await connectDevice(gateway!, { accountId: owner.id } as Tenant);
      const [request] = await receiver.waitFor(1);
      const event = verified(created.secret, request!);
      expect(event).to.include({ type: 'device.online', account_id: owner.id });
      expect(request!.headers['webhook-id']).to.match(UUID);
    });

    it('when a webhook is created through the API, then the command lists it, and deleting it there removes it from the API', async () => {
      const tenant = await createTenant(gateway!);
      accounts.push(tenant.accountId);
      const { webhook } = await createWebhook(tenant, URL_A, ['device.offline']);
      const list = await runCli(['webhooks', 'list', '--account', tenant.accountName, '--json'], env);
      expectOk(list);
      expect(jsonOf(list)).to.deep.equal([webhook]);
      expectOk(await cli('webhooks', 'delete', '--account', tenant.accountName, webhook.id));
      expect((await tenant.api.get(`/webhooks/${webhook.id}`)).status).to.equal(404);
    });
  });
});
