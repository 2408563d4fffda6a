// `sms-gateway serve` as a newcomer runs it (README, "First start"): the real command in a
// child process, on the embedded database in a fresh DATA_DIR, on port 0. One data directory
// lives through the whole file, so the describes run as a story: first start, stop, second
// start, stop. A describe that finds the story broken fails instead of passing.
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { API_KEY, GatewayProcess, killChildren, runCli, tempDataDir, type Env } from '../support/cli.ts';
import { ApiClient } from '../support/tenant.ts';

const FIRST_START_LOG = "first start: the new API key and the administrator's one-time password are in this file, readable by this user only; delete the file once the key is kept safe";
const KEY_LINE = new RegExp(`^ {2}(${API_KEY.source})$`, 'm');

interface CurlCommand {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Reads a printed `curl ...` line the way a shell would (only the quoting the banner uses). */
function parseCurl(line: string): CurlCommand {
  const words = [...line.trim().matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${line}`);
  const command: CurlCommand = { method: 'GET', url: '', headers: {}, body: undefined };
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === '-s') continue;
    if (word === '-X') command.method = words[++i]!;
    else if (word === '-H') {
      const [name, ...value] = words[++i]!.split(':');
      command.headers[name!.trim().toLowerCase()] = value.join(':').trim();
    } else if (word === '-d') command.body = words[++i]!;
    else if (!word.startsWith('-') && !command.url) command.url = word;
    else throw new Error(`unexpected curl argument "${word}" in: ${line}`);
  }
  return command;
}

/** Runs a printed curl command over HTTP; returns the status and the JSON body. */
async function runCurl(command: CurlCommand): Promise<{ status: number; body: any }> {
  const response = await fetch(command.url, { method: command.method, headers: command.headers, body: command.body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * A POST whose headers reach the server but whose body waits for `send()`. It carries
 * `Expect: 100-continue`, so `continued` resolves once the server has parsed the headers and
 * taken the request in: from then on the request is in flight, deterministically.
 */
function requestInTwoParts(port: number, path: string, key: string, body: unknown) {
  const payload = JSON.stringify(body);
  const agent = new http.Agent({ keepAlive: true });
  const request = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path,
    agent,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      expect: '100-continue',
    },
  });
  const continued = new Promise<void>((resolve) => request.once('continue', () => resolve()));
  const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
    request.once('error', reject);
    request.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.once('error', reject);
      res.once('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
  });
  response.catch(() => {}); // awaited by the test; never an unhandled rejection meanwhile
  request.flushHeaders();
  return { continued, response, send: () => request.end(payload), close: () => agent.destroy() };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('sms-gateway serve on the embedded database', function () {
  this.timeout(30_000);

  let dataDir: ReturnType<typeof tempDataDir>;
  let env: Env;
  let lockFile: string;
  // What the first run leaves for the later ones.
  let firstKey: string | undefined;
  let firstSmsId: string | undefined;

  before(() => {
    dataDir = tempDataDir('serve');
    lockFile = join(dataDir.dir, 'gateway.lock');
    // No DATABASE_URL: the embedded database, as on a fresh clone.
    env = { DATA_DIR: dataDir.dir, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info' };
  });

  after(() => {
    killChildren();
    dataDir.remove();
  });

  describe('when it starts for the first time, on an empty database', () => {
    let gateway: GatewayProcess;
    let port: number;
    let sigtermAt: number | undefined;
    // stderr is a pipe here, not a terminal: the banner goes to a file in DATA_DIR, not to the logs.
    let banner = '';

    // Once only: the gateway stops gracefully on the first signal (a second one may force it).
    const sigterm = () => {
      if (sigtermAt !== undefined) return;
      sigtermAt = Date.now();
      gateway.signal('SIGTERM');
    };

    before(async function () {
      this.timeout(240_000);
      gateway = new GatewayProcess(['serve'], env);
      port = (await gateway.waitForLog('gateway listening', 200_000)).port as number;
      const file = (await gateway.waitForLog(FIRST_START_LOG, 10_000)).file as string;
      banner = readFileSync(file, 'utf8');
      firstKey = KEY_LINE.exec(banner)?.[1];
    });

    after(() => gateway.kill());

    const curlLines = () => banner.split('\n').filter((line) => line.trimStart().startsWith('curl '));

    it('then it logs the port it chose and holds the lock on DATA_DIR with its pid', () => {
      expect(port).to.be.a('number').above(0);
      expect(readFileSync(lockFile, 'utf8')).to.equal(String(gateway.pid));
    });

    it('then it prints an API key with every permission once, with ready-to-paste curl commands for its port', () => {
      expect(banner).to.contain('First start: created account "default" and an API key with every permission but sms:send_transactional');
      expect(banner.match(new RegExp(KEY_LINE.source, 'gm')), 'the key is printed on one line of its own, once').to.have.length(1);
      expect(curlLines().length, banner).to.be.at.least(3);
      for (const line of curlLines()) {
        expect(line).to.contain(`http://127.0.0.1:${port}/api/ext/v1/`);
        expect(line).to.contain(`Authorization: Bearer ${firstKey}`);
      }
    });

    it('then the key can do what the banner says and not what it says it cannot: a viewer yes, an owner no (403 naming the permission)', async () => {
      const api = new ApiClient(`http://127.0.0.1:${port}/api/ext/v1`, firstKey!);
      const viewer = await api.post('/users', { email: 'viewer@example.com', role: 'viewer' });
      expect(viewer.status, JSON.stringify(viewer.body)).to.equal(201);
      const owner = await api.post('/users', { email: 'owner@example.com', role: 'owner' });
      expect(owner.status, JSON.stringify(owner.body)).to.equal(403);
      expect(owner.body.error.message).to.equal('an owner may do what the caller may not (sms:send_transactional); only a caller holding all of it may do this');
    });

    it('then the key appears in no log line (only in the banner)', () => {
      const logLines = gateway.stdout.split('\n').filter((line) => line.startsWith('{'));
      expect(logLines.length).to.be.at.least(1);
      for (const line of logLines) expect(line).not.to.contain(firstKey!.slice(15));
      expect(gateway.stderr).not.to.contain(firstKey!.slice(15));
    });

    it('then the printed curl command that sends an SMS creates it: 201, status pending', async () => {
      const line = curlLines().find((candidate) => / -X POST \S+\/sms /.test(candidate));
      expect(line, gateway.stdout).to.be.a('string');
      const reply = await runCurl(parseCurl(line!));
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body).to.include({ status: 'pending', phone: '+79161234567' });
      firstSmsId = reply.body.id;
    });

    it("then the printed curl commands register a device and patch its settings: 201, then 200 with the device's new settings", async () => {
      const register = curlLines().find((candidate) => / -X POST \S+\/devices /.test(candidate));
      const patch = curlLines().find((candidate) => / -X PATCH \S+\/devices\/<device id>\/settings /.test(candidate));
      expect(register, gateway.stdout).to.be.a('string');
      expect(patch, gateway.stdout).to.be.a('string');

      const registered = await runCurl(parseCurl(register!));
      expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
      const deviceId = registered.body.device.id as string;
      const patched = await runCurl(parseCurl(patch!.replace('<device id>', deviceId)));
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      expect(patched.body).to.include({ id: deviceId, name_custom: 'Office phone', selected_sim: 0 });
    });

    it('when SIGTERM arrives while a request is in flight, then that request still completes (201)', async () => {
      const request = requestInTwoParts(port, '/api/ext/v1/sms', firstKey!, { phone: '+79161234567', message: 'in flight' });
      try {
        await within(request.continued, 5_000, '100 Continue from the gateway');
        sigterm();
        // "stopping" is logged just before the server stops accepting: the request is now in flight
        // across the shutdown. Only then does its body go out.
        await gateway.waitForLog('stopping', 5_000);
        request.send();
        const reply = await within(request.response, 5_000, 'response to the in-flight request');
        expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
        expect(reply.body).to.include({ status: 'pending', message: 'in flight' });
      } finally {
        request.close();
      }
    });

    it('when SIGTERM arrives, then the process exits with code 0 within 5 s', async () => {
      sigterm();
      const exit = await gateway.waitForExit(15_000);
      expect(exit, gateway.transcript()).to.deep.equal({ code: 0, signal: null });
      expect(gateway.exitedAt! - sigtermAt!, 'milliseconds from SIGTERM to exit').to.be.below(5_000);
      expect(gateway.logLines().map((line) => line.msg)).to.include('gateway stopped');
    });

    it('then the lock file DATA_DIR/gateway.lock is gone', () => {
      expect(gateway.exit, 'the gateway has exited').not.to.equal(undefined);
      expect(existsSync(lockFile)).to.equal(false);
    });
  });

  describe('when it starts again on the same data directory', () => {
    let gateway: GatewayProcess;
    let api: ApiClient;

    before(async function () {
      this.timeout(60_000);
      if (!firstKey) throw new Error('the first start printed no key: nothing to start again with');
      gateway = new GatewayProcess(['serve'], env);
      const port = (await gateway.waitForLog('gateway listening', 50_000)).port as number;
      api = new ApiClient(`http://127.0.0.1:${port}/api/ext/v1`, firstKey);
    });

    after(() => gateway.kill());

    it('then the first key still works and the SMS of the first run is still there', async () => {
      expect(firstSmsId, 'the first run created an SMS').to.be.a('string');
      const reply = await api.get(`/sms/${firstSmsId}`);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body).to.include({ id: firstSmsId, status: 'pending' });
    });

    it('then a command-line tool on the same directory is refused with a message that the directory is in use', async () => {
      const result = await runCli(['keys', 'list'], { DATA_DIR: dataDir.dir });
      expect(result.code, result.transcript).to.equal(1);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.contain(`the embedded database in ${dataDir.dir} is in use by process ${gateway.pid}`);
      expect(result.stderr).not.to.match(/\n\s+at /);
      // The refused command left the gateway's lock and the gateway itself alone.
      expect(readFileSync(lockFile, 'utf8')).to.equal(String(gateway.pid));
      expect((await api.get('/devices')).status).to.equal(200);
    });

    it('when SIGINT arrives, then it exits with code 0, having printed no new key', async () => {
      gateway.signal('SIGINT');
      const exit = await gateway.waitForExit(5_000);
      expect(exit, gateway.transcript()).to.deep.equal({ code: 0, signal: null });
      expect(gateway.stdout).not.to.contain('First start');
      expect(gateway.stdout).not.to.match(API_KEY);
      expect(existsSync(lockFile)).to.equal(false);
    });
  });

  describe('when it is run with npm start, as README says', () => {
    let gateway: GatewayProcess;

    before(async function () {
      this.timeout(60_000);
      gateway = new GatewayProcess([], env, { npmScript: 'start' });
      await gateway.waitForLog('gateway listening', 50_000);
    });

    after(() => {
      gateway.kill();
      // A gateway npm left running holds the lock with its pid: stop it too.
      if (existsSync(lockFile)) {
        try {
          process.kill(Number(readFileSync(lockFile, 'utf8')), 'SIGKILL');
        } catch {
          // it exited meanwhile
        }
      }
    });

    it('when SIGTERM reaches npm, then the gateway itself stops too and releases the lock', async () => {
      gateway.signal('SIGTERM');
      // The output pipes close only once every process holding them (npm and the gateway) ended.
      await gateway.waitForExit(15_000);
      expect(gateway.logLines().map((line) => line.msg), gateway.transcript()).to.include('gateway stopped');
      expect(existsSync(lockFile), 'the lock file is gone').to.equal(false);
    });
  });

  describe('when no gateway runs any more', () => {
    it('then a command-line tool opens the directory and finds one key, the first-start key, still active', async function () {
      this.timeout(30_000);
      const result = await runCli(['keys', 'list', '--json'], { DATA_DIR: dataDir.dir });
      expect(result.code, result.transcript).to.equal(0);
      const keys = JSON.parse(result.stdout) as { prefix: string; account: string; revoked_at: string | null; last_used_at: string | null }[];
      expect(keys).to.have.length(1);
      expect(firstKey!.startsWith(`${keys[0]!.prefix}_`), 'the listed key is the first-start key').to.equal(true);
      expect(keys[0]).to.include({ account: 'default', revoked_at: null });
      expect(keys[0]!.last_used_at, 'the key was used').to.be.a('string');
    });

    it('when PORT is taken by another program, then serve exits non-zero naming the port, with no stack trace, and releases the lock', async function () {
      this.timeout(30_000);
      const squatter = net.createServer();
      await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
      const taken = (squatter.address() as AddressInfo).port;
      try {
        const result = await runCli(['serve'], { ...env, PORT: String(taken) });
        expect(result.code, result.transcript).to.be.a('number').and.not.equal(0);
        expect(result.stderr, result.transcript).to.contain(String(taken));
        expect(result.stderr, result.transcript).to.match(/in use/i);
        expect(result.stderr, result.transcript).not.to.match(/\n\s+at /);
        expect(existsSync(lockFile), 'the lock file is gone').to.equal(false);
      } finally {
        await new Promise((resolve) => squatter.close(resolve));
      }
    });
  });
});
