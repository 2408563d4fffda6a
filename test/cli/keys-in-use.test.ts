// `keys create|list|revoke` and `webhooks create|list|delete` while a gateway holds the embedded
// database: the CLI may not open the directory, so it says so and prints the curl that does the
// same through the running gateway. The printed curl is then run as printed (with the first-start
// key), against a real `serve` process on the embedded database: the key it makes works, and its
// revocation is refused at once.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { API_KEY, GatewayProcess, killChildren, runCli, STACK_FRAME, tempDataDir, type Env } from '../support/cli.ts';
import { ApiClient } from '../support/tenant.ts';

const run = promisify(execFile);

/** The curl line of a refusal, run by sh with KEY set, as an operator would paste it. */
async function runPrintedCurl(stderr: string, key: string): Promise<any> {
  const line = stderr.split('\n').find((each) => each.trim().startsWith('curl '));
  expect(line, stderr).to.be.a('string');
  const { stdout } = await run('sh', ['-c', line!.trim()], { env: { ...process.env, KEY: key }, timeout: 10_000 });
  return JSON.parse(stdout);
}

describe('cli: keys and webhooks while a gateway holds the embedded database', function () {
  this.timeout(30_000);
  let dataDir: ReturnType<typeof tempDataDir>;
  let gateway: GatewayProcess;
  let env: Env;
  let firstKey: string;

  before(async function () {
    this.timeout(120_000);
    dataDir = tempDataDir('keys-in-use');
    // A webhook made through it points at this machine (no name resolves here): allowed by name.
    gateway = new GatewayProcess(['serve'], { DATA_DIR: dataDir.dir, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    const port = (await gateway.waitForLog('gateway listening', 100_000)).port as number;
    // Not a terminal: the first start writes its key to a file that one log line names.
    const banner = await gateway.waitFor('the first-start file', 10_000, () =>
      gateway.logLines().find((line) => typeof line.file === 'string' && String(line.msg).startsWith('first start')),
    );
    const file = banner.file as string;
    firstKey = new RegExp(API_KEY.source).exec(readFileSync(file, 'utf8'))![0];
    // The CLI is told the gateway's port, as an operator's environment would.
    env = { DATA_DIR: dataDir.dir, PORT: String(port), HOST: '127.0.0.1', MQTT_PORT: '0' };
  });

  after(() => {
    gateway?.kill();
    killChildren();
    dataDir?.remove();
  });

  it('when keys create is refused, then it prints a curl for POST /keys that makes the key through the gateway', async () => {
    const result = await runCli(['keys', 'create', '--account', 'default', '--permissions', 'devices:read', '--name', "bob's"], env);
    expect(result.code, result.transcript).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).not.to.match(STACK_FRAME);
    expect(result.stderr).to.contain(`is in use by process ${gateway.pid}`);
    expect(result.stderr).to.contain(`curl -s -X POST 'http://127.0.0.1:${env.PORT}/api/ext/v1/keys'`);
    expect(result.stderr).to.contain('keys:manage');

    const created = await runPrintedCurl(result.stderr, firstKey);
    expect(created).to.include({ name: "bob's", revoked_at: null });
    expect(created.permissions).to.deep.equal(['devices:read']);
    const api = new ApiClient(`http://127.0.0.1:${env.PORT}/api/ext/v1`, created.key);
    expect((await api.get('/devices')).status).to.equal(200);

    // Revoked by id through the printed DELETE, the new key is refused at once.
    const revoke = await runCli(['keys', 'revoke', created.id], env);
    expect(revoke.code, revoke.transcript).to.equal(1);
    expect(revoke.stderr).to.contain(`curl -s -X DELETE 'http://127.0.0.1:${env.PORT}/api/ext/v1/keys/${created.id}'`);
    expect((await runPrintedCurl(revoke.stderr, firstKey)).revoked_at).to.be.a('string');
    expect((await api.get('/devices')).status).to.equal(401);
  });

  it('when keys list is refused, then it prints a curl for GET /keys that lists them without secrets', async () => {
    const result = await runCli(['keys', 'list'], env);
    expect(result.code, result.transcript).to.equal(1);
    expect(result.stderr).to.contain(`curl -s -X GET 'http://127.0.0.1:${env.PORT}/api/ext/v1/keys'`);
    const listed = await runPrintedCurl(result.stderr, firstKey);
    expect(listed.data.length).to.be.at.least(1);
    expect(JSON.stringify(listed)).not.to.contain(firstKey);
  });

  it('when keys revoke names a prefix, then the printed DELETE says to find its id in GET /keys', async () => {
    const prefix = firstKey.slice(0, 'sgw_0123456789'.length);
    const result = await runCli(['keys', 'revoke', prefix], env);
    expect(result.code, result.transcript).to.equal(1);
    expect(result.stderr).to.contain(`/api/ext/v1/keys/<id of ${prefix}, from GET /keys>`);
  });

  it('when webhooks create, list and delete are refused, then each prints the curl that does it through the gateway', async () => {
    const created = await runCli(['webhooks', 'create', '--account', 'default', '--url', 'http://127.0.0.1:9/sms', '--events', 'sms.status_changed'], env);
    expect(created.code, created.transcript).to.equal(1);
    expect(created.stderr).to.contain(`curl -s -X POST 'http://127.0.0.1:${env.PORT}/api/ext/v1/webhooks'`);
    expect(created.stderr).to.contain('webhooks:write');
    const { webhook } = await runPrintedCurl(created.stderr, firstKey);
    expect(webhook).to.include({ url: 'http://127.0.0.1:9/sms' });

    const listed = await runCli(['webhooks', 'list', '--account', 'default'], env);
    expect(listed.code, listed.transcript).to.equal(1);
    expect((await runPrintedCurl(listed.stderr, firstKey)).data.map((each: { id: string }) => each.id)).to.include(webhook.id);

    const deleted = await runCli(['webhooks', 'delete', '--account', 'default', webhook.id], env);
    expect(deleted.code, deleted.transcript).to.equal(1);
    expect(deleted.stderr).to.contain(`curl -s -X DELETE 'http://127.0.0.1:${env.PORT}/api/ext/v1/webhooks/${webhook.id}'`);
  });
});
