// The `sms-gateway` command line (README, "Command line"), run as a real child process:
// accounts create, keys create|list|revoke, devices register|token, migrate, usage and config
// errors. On PostgreSQL the commands share the suite's database with an in-process gateway, so
// a key the command prints is tried over HTTP. On PGlite the commands get a fresh data
// directory; a gateway cannot share it while it is locked, so the HTTP checks exist on
// PostgreSQL only.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import { API_KEY, expectOk, expectRefused, jsonOf, killChildren, runCli, STACK_FRAME, tempDataDir, type CliResult, type Env } from '../support/cli.ts';
import { testDatabase, testDatabaseUrl } from '../support/environment.ts';
import { startGateway } from '../support/gateway.ts';
import { ApiClient } from '../support/tenant.ts';
import { RawClients } from '../support/mqtt.ts';

const onPostgres = testDatabase().kind === 'postgres';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function uniqueName(label: string): string {
  return `cli-${label}-${randomBytes(4).toString('hex')}`;
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('sms-gateway command line', function () {
  this.timeout(30_000);

  let env: Env;
  let removeDataDir = () => {};
  let gateway: Gateway | undefined;
  /** An account the commands below use; created through the command line. */
  let owner: string;

  const cli = (...args: string[]) => runCli(args, env);
  const api = (key: string) => new ApiClient(`http://127.0.0.1:${gateway!.httpPort}/api/ext/v1`, key);

  before(async function () {
    // The first command on an empty data directory creates the embedded database: slower.
    this.timeout(90_000);
    if (onPostgres) {
      env = { DATABASE_URL: testDatabaseUrl() };
      gateway = await startGateway();
    } else {
      const dataDir = tempDataDir('cli');
      removeDataDir = dataDir.remove;
      env = { DATA_DIR: dataDir.dir };
    }
    owner = uniqueName('owner');
    const created = await runCli(['accounts', 'create', owner], env, 80_000);
    expect(created.code, created.transcript).to.equal(0);
  });

  after(async () => {
    killChildren();
    await gateway?.stop();
    removeDataDir();
  });

  describe('accounts create', () => {
    it('when NAME is new, then it exits 0 and says the account was created, with its id', async () => {
      const name = uniqueName('acct');
      const result = await cli('accounts', 'create', name);
      expect(result.code, result.transcript).to.equal(0);
      expect(result.stdout).to.match(new RegExp(`account "${name}" created \\([0-9a-f-]{36}\\)`));
    });

    it('when --json is given, then stdout is one JSON document with id, name and created_at', async () => {
      const name = uniqueName('json');
      const result = await cli('accounts', 'create', name, '--json');
      expect(result.code, result.transcript).to.equal(0);
      const body = jsonOf(result);
      expect(body).to.have.all.keys('id', 'name', 'created_at');
      expect(body.id).to.match(UUID);
      expect(body.name).to.equal(name);
      expect(body.created_at).to.match(ISO_TIME);
    });

    it('when the name is taken, then it exits non-zero and says the account already exists', async () => {
      const result = await cli('accounts', 'create', owner);
      expectRefused(result);
      expect(result.stderr).to.contain(`account "${owner}" already exists`);
    });

    it('when NAME is missing, then it exits 2 and prints the usage', async () => {
      const result = await cli('accounts', 'create');
      expectRefused(result, 2);
      expect(result.stderr).to.contain('usage: sms-gateway accounts create NAME');
    });

    it('when a command fails with --json, then the error is one JSON document on stderr', async () => {
      const result = await cli('accounts', 'create', '--json');
      expectRefused(result, 2);
      const error = JSON.parse(result.stderr);
      expect(error).to.have.all.keys('error');
      expect(error.error.message).to.contain('usage: sms-gateway accounts create NAME');
    });
  });

  describe('keys create', () => {
    it('when --permissions lists known permissions, then it prints the key once, with its prefix and permissions', async () => {
      const result = await cli('keys', 'create', '--account', owner, '--permissions', 'sms:send,devices:read');
      expect(result.code, result.transcript).to.equal(0);
      const key = API_KEY.exec(result.stdout)?.[0];
      expect(key, result.transcript).to.be.a('string');
      expect(occurrences(result.stdout, key!), 'the key is printed exactly once').to.equal(1);
      expect(result.stdout).to.contain(`Prefix ${key!.slice(0, 14)}`);
      expect(result.stdout).to.contain('permissions: sms:send, devices:read');
      expect(result.stdout).to.contain('shown once');
      expect(result.stderr, 'the key never reaches the log on stderr').not.to.contain(key!);
    });

    it('when --json is given, then stdout is one JSON document with key, id, prefix, account and permissions', async () => {
      const result = await cli('keys', 'create', '--account', owner, '--permissions', 'sms:send,devices:read', '--json');
      expect(result.code, result.transcript).to.equal(0);
      const body = jsonOf(result);
      expect(body).to.have.all.keys('key', 'id', 'prefix', 'account', 'permissions');
      expect(body.key).to.match(new RegExp(`^${API_KEY.source}$`));
      expect(body.key.startsWith(`${body.prefix}_`), 'the key starts with its prefix').to.equal(true);
      expect(body.id).to.match(UUID);
      expect(body.account).to.equal(owner);
      expect(body.permissions).to.have.members(['sms:send', 'devices:read']);
      expect(occurrences(result.stdout, body.key), 'the key is printed exactly once').to.equal(1);
    });

    it('when --permissions is all, then the key carries every permission but sms:send_transactional (granted only when named)', async () => {
      const result = await cli('keys', 'create', '--account', owner, '--permissions', 'all', '--json');
      expect(result.code, result.transcript).to.equal(0);
      expect(jsonOf(result).permissions).to.have.members(PERMISSIONS.filter((permission) => permission !== 'sms:send_transactional'));
    });

    if (onPostgres) {
      it('when the printed key is used against the gateway, then it works with exactly the permissions given', async () => {
        const result = await cli('keys', 'create', '--account', owner, '--permissions', 'sms:send,devices:read');
        expect(result.code, result.transcript).to.equal(0);
        const client = api(API_KEY.exec(result.stdout)![0]);
        const devices = await client.get('/devices');
        expect(devices.status, JSON.stringify(devices.body)).to.equal(200);
        expect(devices.body.data).to.be.an('array');
        const sms = await client.post('/sms', { phone: '+79161234567', message: 'from a CLI key' });
        expect(sms.status, JSON.stringify(sms.body)).to.equal(201);
        const register = await client.post('/devices', { name: 'not allowed' });
        expect(register.status, 'devices:write was not granted').to.equal(403);
      });
    }

    it('when a permission is unknown, then it exits non-zero naming that permission and prints no key', async () => {
      const result = await cli('keys', 'create', '--account', owner, '--permissions', 'sms:send,sms:sned');
      expectRefused(result);
      expect(result.stderr).to.contain('unknown permission');
      expect(result.stderr).to.contain('sms:sned');
      expect(result.stderr).not.to.match(API_KEY);
    });

    it('when --account is missing, then it exits non-zero naming --account', async () => {
      const result = await cli('keys', 'create', '--permissions', 'sms:send');
      expectRefused(result);
      expect(result.stderr).to.contain('--account');
    });

    it('when --permissions has no value, then it exits non-zero naming --permissions', async () => {
      const result = await cli('keys', 'create', '--account', owner, '--permissions');
      expectRefused(result);
      expect(result.stderr).to.contain('--permissions');
    });

    it('when an unknown flag is given, then it exits non-zero naming the flag', async () => {
      const result = await cli('keys', 'create', '--account', owner, '--permissions', 'sms:send', '--expires', '30d');
      expectRefused(result);
      expect(result.stderr).to.contain('--expires');
    });

    it('when the account does not exist, then it exits non-zero naming the account', async () => {
      const missing = uniqueName('missing');
      const result = await cli('keys', 'create', '--account', missing, '--permissions', 'sms:send');
      expectRefused(result);
      expect(result.stderr).to.contain(`no account named "${missing}"`);
    });
  });

  describe('keys list and keys revoke', () => {
    let account: string;
    let active: { key: string; prefix: string };
    let revoked: { key: string; prefix: string };
    let revoke: CliResult;
    let textList: CliResult;
    let jsonList: CliResult;

    before(async function () {
      this.timeout(60_000);
      account = uniqueName('list');
      const steps: [string, CliResult][] = [];
      const step = async (...args: string[]) => {
        const result = await cli(...args);
        steps.push([args.join(' '), result]);
        expect(result.code, result.transcript).to.equal(0);
        return result;
      };
      await step('accounts', 'create', account);
      active = jsonOf(await step('keys', 'create', '--account', account, '--permissions', 'sms:send,sms:read', '--json'));
      revoked = jsonOf(await step('keys', 'create', '--account', account, '--permissions', 'devices:read', '--json'));
      revoke = await step('keys', 'revoke', revoked.prefix);
      textList = await step('keys', 'list', '--account', account);
      jsonList = await step('keys', 'list', '--account', account, '--json');
    });

    it('when keys revoke PREFIX names an active key, then it exits 0 and says the key is revoked', () => {
      expect(revoke.stdout).to.contain(`key ${revoked.prefix} revoked`);
    });

    it('when the keys are listed as text, then each shows its prefix, permissions and state, active or revoked', () => {
      const lines = textList.stdout.split('\n');
      expect(lines[0]).to.match(/^PREFIX\s+ACCOUNT\s+NAME\s+PERMISSIONS\s+LAST_USED\s+STATE$/);
      const activeLine = lines.find((line) => line.startsWith(active.prefix));
      const revokedLine = lines.find((line) => line.startsWith(revoked.prefix));
      expect(activeLine, textList.transcript).to.be.a('string');
      expect(revokedLine, textList.transcript).to.be.a('string');
      expect(activeLine).to.contain('sms:send,sms:read').and.match(/\sactive$/);
      expect(revokedLine).to.contain('devices:read').and.match(/\srevoked$/);
    });

    it('when the keys are listed with --json, then each entry shows its prefix, permissions and revoked_at', () => {
      const rows = jsonOf(jsonList) as Record<string, any>[];
      expect(rows).to.have.length(2);
      for (const row of rows) {
        expect(row).to.have.all.keys('id', 'prefix', 'name', 'account', 'permissions', 'created_at', 'last_used_at', 'revoked_at');
        expect(row.account).to.equal(account);
      }
      const activeRow = rows.find((row) => row.prefix === active.prefix)!;
      const revokedRow = rows.find((row) => row.prefix === revoked.prefix)!;
      expect(activeRow.permissions).to.have.members(['sms:send', 'sms:read']);
      expect(activeRow.revoked_at).to.equal(null);
      expect(revokedRow.revoked_at).to.match(ISO_TIME);
    });

    it('when the keys are listed, then neither the text nor the JSON output carries the secret part of a key', () => {
      for (const [format, result] of [['text', textList], ['json', jsonList]] as const) {
        const output = result.stdout + result.stderr;
        for (const { key, prefix } of [active, revoked]) {
          expect(output, `${format} output`).not.to.contain(key.slice(prefix.length + 1));
        }
        expect(output, `${format} output`).not.to.match(API_KEY);
        expect(output, `${format} output`).not.to.match(/hash/i);
      }
    });

    it('when keys revoke names a key that is already revoked, then it exits 0 as the API answers a second DELETE, with the first revocation\'s time', async () => {
      const first = (jsonOf(jsonList) as Record<string, any>[]).find((row) => row.prefix === revoked.prefix)!;
      const result = await cli('keys', 'revoke', revoked.prefix, '--json');
      expect(result.code, result.transcript).to.equal(0);
      expect(jsonOf(result)).to.deep.include({ prefix: revoked.prefix, revoked_at: first.revoked_at });
    });

    it('when keys revoke names no key at all, then it exits non-zero saying so', async () => {
      const result = await cli('keys', 'revoke', 'sgw_0000000000');
      expectRefused(result);
      expect(result.stderr).to.contain('no key with id or prefix "sgw_0000000000"');
    });

    it('when keys revoke is given no prefix, then it exits non-zero and says what it takes', async () => {
      const result = await cli('keys', 'revoke');
      expectRefused(result);
      expect(result.stderr).to.contain('keys revoke takes one key id or prefix');
    });
  });

  if (onPostgres) {
    describe('keys revoke with a gateway running on the same database', () => {
      it('when a key in use is revoked, then the gateway answers 401 for it', async () => {
        const account = uniqueName('revoke');
        expect((await cli('accounts', 'create', account)).code).to.equal(0);
        const created = jsonOf(await cli('keys', 'create', '--account', account, '--permissions', 'devices:read', '--json'));
        const client = api(created.key);
        expect((await client.get('/devices')).status, 'the key works before it is revoked').to.equal(200);

        const revoke = await cli('keys', 'revoke', created.prefix);
        expect(revoke.code, revoke.transcript).to.equal(0);

        // The gateway caches a key lookup for 5 s (src/modules/api-keys/service.ts CACHE_TTL_MS), so
        // a revocation made by another process without Redis to tell it takes effect within that
        // time, not at once (with REDIS_URL it is told: test/cluster/commands-told.test.ts).
        const deadline = Date.now() + 8_000;
        let reply = await client.get('/devices');
        while (reply.status === 200 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          reply = await client.get('/devices');
        }
        expect(reply.status, 'the revoked key is refused within the 5 s lookup cache').to.equal(401);
        expect(reply.headers.get('www-authenticate')).to.match(/^Bearer/);
      });
    });
  }

  describe('twilio and smpp credentials list', () => {
    it('when listed without --account, then each credential names the account it belongs to, in the text and in the JSON', async function () {
      this.timeout(60_000);
      const accounts = [uniqueName('creds-a'), uniqueName('creds-b')];
      const twilioSids: string[] = [];
      const smppIds: string[] = [];
      for (const account of accounts) {
        expectOk(await cli('accounts', 'create', account));
        const twilio = await cli('twilio', 'credentials', 'create', '--account', account, '--json');
        expectOk(twilio);
        twilioSids.push(jsonOf(twilio).account_sid);
        const smpp = await cli('smpp', 'credentials', 'create', '--account', account, '--json');
        expectOk(smpp);
        smppIds.push(jsonOf(smpp).id);
      }
      const lists: [string, string[]][] = [
        ['twilio', twilioSids],
        ['smpp', smppIds],
      ];
      for (const [command, ids] of lists) {
        const text = await cli(command, 'credentials', 'list');
        expectOk(text);
        expect(text.stdout.split('\n')[0], text.transcript).to.match(/\sACCOUNT\s/);
        const json = await cli(command, 'credentials', 'list', '--json');
        expectOk(json);
        const rows = jsonOf(json) as Record<string, string>[];
        ids.forEach((id, i) => {
          const line = text.stdout.split('\n').find((row) => row.startsWith(id));
          expect(line, text.transcript).to.be.a('string');
          expect(line!.split(/\s+/), `${command}: ${line}`).to.include(accounts[i]);
          expect(rows.find((row) => row.account_sid === id || row.id === id)?.account, `${command} --json`).to.equal(accounts[i]);
        });
      }
    });
  });

  describe('devices register', () => {
    it("when --account and --name are given, then it prints the device's id and its token", async () => {
      const result = await cli('devices', 'register', '--account', owner, '--name', 'office-phone');
      expect(result.code, result.transcript).to.equal(0);
      expect(result.stdout).to.contain('device "office-phone" registered');
      expect(result.stdout).to.match(/device id \(MQTT client id and username\): [0-9a-f-]{36}\n/);
      expect(result.stdout).to.match(/legacy object id:\s+[0-9a-f]{24}\n/);
      expect(result.stdout).to.match(/token \(MQTT password, shown once\):\s+\S{20,}/);
    });

    it('when --json is given, then it prints device_id, object_id, name and the device-channel credentials', async () => {
      const result = await cli('devices', 'register', '--account', owner, '--name', 'json-phone', '--json');
      expect(result.code, result.transcript).to.equal(0);
      const body = jsonOf(result);
      expect(body).to.have.all.keys('device_id', 'object_id', 'name', 'forward_incoming_sms', 'credentials', 'pairing_url', 'pairing_broker');
      // Neither MQTT_PUBLIC_URL, PUBLIC_URL nor --host: no address to give.
      expect(body.pairing_url).to.equal(null);
      expect(body.pairing_broker).to.equal(null);
      expect(body.device_id).to.match(UUID);
      expect(body.object_id).to.match(/^[0-9a-f]{24}$/);
      expect(body.name).to.equal('json-phone');
      // A new device forwards the SMS it receives (replies, STOP opt-outs) from the start.
      expect(body.forward_incoming_sms).to.equal(true);
      expect(body.credentials).to.have.all.keys('client_id', 'username', 'password');
      expect(body.credentials.client_id).to.equal(body.device_id);
      expect(body.credentials.username).to.equal(body.device_id);
      expect(body.credentials.password).to.be.a('string').with.length.of.at.least(20);
    });

    if (onPostgres) {
      it("when a device is registered, then it belongs to the account named: that account's key reads it from the gateway", async () => {
        const registered = jsonOf(await cli('devices', 'register', '--account', owner, '--name', 'api-phone', '--json'));
        const key = jsonOf(await cli('keys', 'create', '--account', owner, '--permissions', 'devices:read', '--json')).key;
        const reply = await api(key).get(`/devices/${registered.device_id}`);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expect(reply.body).to.include({ id: registered.device_id, name: 'api-phone' });
      });
    }

    it('when --json is given with --host, then the document says where the pairing URL\'s broker port came from, as the text does', async () => {
      const result = await cli('devices', 'register', '--account', owner, '--name', 'json-host-phone', '--host', 'gateway.lan', '--json');
      expect(result.code, result.transcript).to.equal(0);
      const body = jsonOf(result);
      expect(body.pairing_url).to.match(/^smsgw:\/\/gateway\.lan:1883\?/);
      expect(body.pairing_broker).to.deep.equal({
        address: 'gateway.lan:1883',
        from: "the host from --host, the port from this command's MQTT_PORT (unset, so its default 1883)",
        hint: "if the running gateway's broker listens on another port, run this command with the gateway's MQTT_PORT, or with MQTT_PUBLIC_URL=mqtt://HOST:PORT where phones reach it",
      });
    });

    it('when --name is missing, then it exits non-zero naming --name', async () => {
      const result = await cli('devices', 'register', '--account', owner);
      expectRefused(result);
      expect(result.stderr).to.contain('--name');
    });
  });

  describe('devices token', () => {
    let registered: { device_id: string; credentials: { password: string } };
    const mqtt = new RawClients(() => `mqtt://127.0.0.1:${gateway!.mqttPort}`);

    beforeEach(async () => {
      registered = jsonOf(await cli('devices', 'register', '--account', owner, '--name', 'token-phone', '--json'));
    });
    afterEach(() => mqtt.endAll());

    it('when DEVICE_ID names a device, then it prints a new token once, and the pairing URL for --host', async () => {
      const id = registered.device_id;
      const result = await cli('devices', 'token', id, '--host', 'gateway.lan');
      expect(result.code, result.transcript).to.equal(0);
      expect(result.stdout).to.contain('has a new token; the old one no longer works');
      expect(result.stdout).to.contain(`device id (MQTT client id and username): ${id}`);
      const token = /token \(MQTT password, shown once\):\s+(\S+)/.exec(result.stdout)?.[1];
      expect(token, result.transcript).to.be.a('string').and.not.equal(registered.credentials.password);
      const url = `smsgw://gateway.lan:1883?v=1&device=${id}&token=${encodeURIComponent(token!)}`;
      expect(result.stdout).to.contain(`pairing URL (holds the token):           ${url}\n`);
      expect(result.stdout).to.contain(`sms-gateway-agent --pairing '${url}'`);
      expect(result.stderr, 'the token never reaches the log on stderr').not.to.contain(token!);
    });

    it('when the pairing URL takes its port from the environment, then the output says which host and port it took, from where, and how to give the gateway\'s', async () => {
      const assumed = await cli('devices', 'token', registered.device_id, '--host', 'gateway.lan');
      expect(assumed.code, assumed.transcript).to.equal(0);
      expect(assumed.stdout).to.contain("broker in the URL:                       gateway.lan:1883: the host from --host, the port from this command's MQTT_PORT (unset, so its default 1883)\n");
      expect(assumed.stdout).to.contain("run this command with the gateway's MQTT_PORT, or with MQTT_PUBLIC_URL=mqtt://HOST:PORT");
      const given = await runCli(['devices', 'token', registered.device_id], { ...env, PUBLIC_URL: 'https://sms.example.com', MQTT_PORT: '1884' });
      expect(given.code, given.transcript).to.equal(0);
      expect(given.stdout).to.match(/pairing URL \(holds the token\): +smsgw:\/\/sms\.example\.com:1884\?/);
      expect(given.stdout).to.contain("sms.example.com:1884: the host from PUBLIC_URL, the port from this command's MQTT_PORT\n");
      const configured = await runCli(['devices', 'token', registered.device_id], { ...env, MQTT_PUBLIC_URL: 'mqtt://mqtt.example.com:2883' });
      expect(configured.code, configured.transcript).to.equal(0);
      expect(configured.stdout).to.contain('mqtt.example.com:2883: the host and the port from MQTT_PUBLIC_URL\n').and.not.to.contain('another port');
    });

    it('when --json is given with MQTT_PUBLIC_URL and PUBLIC_URL, then the pairing URL names them, with tls=1 and api', async () => {
      const id = registered.device_id;
      const result = await runCli(['devices', 'token', id, '--json'], { ...env, MQTT_PUBLIC_URL: 'mqtts://mqtt.example.com', PUBLIC_URL: 'https://sms.example.com' });
      expect(result.code, result.transcript).to.equal(0);
      const body = jsonOf(result);
      expect(body).to.have.all.keys('device_id', 'object_id', 'name', 'forward_incoming_sms', 'credentials', 'pairing_url', 'pairing_broker');
      expect(body.pairing_broker).to.deep.equal({ address: 'mqtt.example.com:8883', from: 'the host and the port from MQTT_PUBLIC_URL', hint: null });
      expect(body.device_id).to.equal(id);
      expect(body.credentials).to.deep.equal({ client_id: id, username: id, password: body.credentials.password });
      expect(body.pairing_url).to.equal(
        `smsgw://mqtt.example.com:8883?v=1&device=${id}&token=${encodeURIComponent(body.credentials.password)}&tls=1&api=https%3A%2F%2Fsms.example.com`,
      );
    });

    it('when MQTT_PORT is 0, then it names no port 0 but says the gateway picks a free port at start, and how to give the one it picked', async () => {
      const result = await runCli(['devices', 'token', registered.device_id, '--host', 'gateway.lan'], { ...env, MQTT_PORT: '0' });
      expect(result.code, result.transcript).to.equal(0);
      expect(result.stdout).not.to.contain(':0');
      expect(result.stdout).to.contain("no pairing URL: this command's MQTT_PORT is 0, so the gateway picks a free port when it starts and this command cannot know it;");
      expect(result.stdout).to.contain('the port the gateway logged at start');
      const json = jsonOf(await runCli(['devices', 'token', registered.device_id, '--host', 'gateway.lan', '--json'], { ...env, MQTT_PORT: '0' }));
      expect(json).to.include({ pairing_url: null, pairing_broker: null });
    });

    it('when no address is known, then it prints the credentials and says how to get a pairing URL', async () => {
      const result = await cli('devices', 'token', registered.device_id);
      expect(result.code, result.transcript).to.equal(0);
      expect(result.stdout).to.contain('no pairing URL: set MQTT_PUBLIC_URL or PUBLIC_URL, or pass --host');
    });

    if (onPostgres) {
      it('when the gateway is running, then it refuses the old token with CONNACK 5 and takes the new one', async () => {
        const id = registered.device_id;
        const token = jsonOf(await cli('devices', 'token', id, '--json')).credentials.password;
        const refused = await mqtt.refused({ clientId: id, username: id, password: registered.credentials.password });
        expect(refused.code).to.equal(5);
        await mqtt.device(id, token);
      });
    }

    it('when the id names no device, then it exits 1 saying so', async () => {
      const result = await cli('devices', 'token', '00000000-0000-4000-8000-000000000000');
      expectRefused(result, 1);
      expect(result.stderr).to.contain('no device with id 00000000-0000-4000-8000-000000000000');
    });

    it('when the id is not a UUID, then it exits 2 naming it', async () => {
      const result = await cli('devices', 'token', 'phone-1');
      expectRefused(result, 2);
      expect(result.stderr).to.contain('"phone-1" is not a device id');
    });

    it('when --host is not a host, then it exits 2 and the old token stays', async () => {
      const result = await cli('devices', 'token', registered.device_id, '--host', 'gate way/x');
      expectRefused(result, 2);
      expect(result.stderr).to.contain('--host must be a host name or an IP address');
      if (onPostgres) await mqtt.device(registered.device_id, registered.credentials.password);
    });
  });

  describe('migrate', () => {
    it('when the schema is current, then it exits 0 and says the database is up to date', async () => {
      const result = await cli('migrate');
      expect(result.code, result.transcript).to.equal(0);
      expect(result.stdout).to.contain('up to date');
    });
  });

  describe('usage and configuration errors', () => {
    it('when the command is unknown, then it exits 2 naming the command and listing the commands', async () => {
      const result = await cli('frobnicate');
      expectRefused(result, 2);
      expect(result.stderr).to.contain('unknown command "frobnicate"');
      for (const command of ['serve', 'migrate', 'accounts', 'keys', 'devices']) expect(result.stderr).to.contain(command);
    });

    it('when the action is unknown, then it exits 2 naming it and the actions there are', async () => {
      const keys = await cli('keys', 'frob');
      expectRefused(keys, 2);
      expect(keys.stderr).to.contain('unknown action "frob": create, list, revoke');
      const twilio = await cli('twilio', 'credentials', 'frob');
      expectRefused(twilio, 2);
      expect(twilio.stderr).to.contain('unknown action "frob": create, list, delete');
      const accounts = await cli('accounts', 'list');
      expectRefused(accounts, 2);
      expect(accounts.stderr).to.contain('unknown action "list": create');
    });

    it('when a numeric flag is out of its range, then every command says the range and quotes what was given (exit 2)', async () => {
      const cases: [string[], string][] = [
        [['sms', 'list', '--limit', '0'], '--limit must be a whole number from 1 to 100, got "0"'],
        [['sms', 'list', '--limit=ten'], '--limit must be a whole number from 1 to 100, got "ten"'],
        [['smpp', 'credentials', 'create', '--account', owner, '--window', '0'], '--window must be a whole number from 1 to 1000, got "0"'],
        [['simulate', '--devices', '1', '--key', 'sgw_0123456789_x', '--delay', 'soon'], '--delay must be a whole number from 0 to 600000, got "soon"'],
        [['simulate', '--devices', '1', '--key', 'sgw_0123456789_x', '--undelivered-rate', '2'], '--undelivered-rate must be a number from 0 to 1, got "2"'],
      ];
      for (const [args, message] of cases) {
        const result = await cli(...args);
        expectRefused(result, 2);
        expect(result.stderr, result.transcript).to.contain(`error: ${message}\n`);
      }
    });

    it('when accounts create is given an unknown flag, then it exits 2 naming the flag', async () => {
      const result = await cli('accounts', 'create', uniqueName('flag'), '--bogus');
      expectRefused(result, 2);
      expect(result.stderr).to.contain("'--bogus'");
    });

    it('when PORT is not a port number, then it exits non-zero with a message naming PORT', async () => {
      const result = await runCli(['keys', 'list'], { ...env, PORT: 'abc' });
      expectRefused(result);
      expect(result.stderr).to.match(/PORT: .*"abc"/);
    });

    it('when DATABASE_URL is not a PostgreSQL URL, then the message names DATABASE_URL and does not echo its password', async () => {
      const result = await runCli(['keys', 'list'], { ...env, DATABASE_URL: 'mysql://admin:hunter2secret@db.example/sms' });
      expectRefused(result);
      expect(result.stderr).to.contain('DATABASE_URL');
      expect(result.stderr).not.to.contain('hunter2secret');
    });

    it('when DATA_DIR lies under a file, then it exits non-zero naming DATA_DIR, without a stack trace', async () => {
      const dataDir = tempDataDir('cli-file');
      try {
        const file = join(dataDir.dir, 'a-file');
        writeFileSync(file, '');
        const result = await runCli(['keys', 'list'], { ...env, DATA_DIR: join(file, 'data') });
        expectRefused(result);
        expect(result.stderr).to.contain(`DATA_DIR ${join(file, 'data')} cannot be used (ENOTDIR)`);
      } finally {
        dataDir.remove();
      }
    });

    it('when DATA_DIR lies where nothing can be made (under /proc), then it exits non-zero naming DATA_DIR instead of hanging', async function () {
      if (process.platform !== 'linux') this.skip();
      const result = await runCli(['keys', 'list'], { ...env, DATA_DIR: '/proc/sms-gateway-test/data' });
      expectRefused(result);
      expect(result.stderr).to.contain('DATA_DIR /proc/sms-gateway-test/data cannot be used (ENOENT)');
    });

    it('when the database cannot be reached, then it exits non-zero saying so, without a stack trace or the password', async () => {
      // Port 1 on the loopback refuses at once: the database is down.
      const result = await runCli(['keys', 'list'], { ...env, DATABASE_URL: 'postgres://sgw:hunter2secret@127.0.0.1:1/sms' });
      expectRefused(result);
      expect(result.stderr).to.match(/database/i);
      expect(result.stderr).not.to.contain('hunter2secret');
    });
  });
});
