// `npm run demo`: the gateway on the embedded defaults plus three simulated phones. It prints a
// key, a curl command and the panel's login, and an SMS sent with the key visibly goes
// pending -> sent -> delivered. A default port that is taken (here: the MQTT port) must not stop it,
// and a later run on the same data directory still prints a login that works.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { REPO_ROOT, SHEDDING_OFF, tempDataDir } from '../support/cli.ts';
import { ApiClient } from '../support/tenant.ts';

interface DemoRun {
  output(): string;
  seen(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(): Promise<void>;
}

function startDemo(env: NodeJS.ProcessEnv): DemoRun {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
    cwd: REPO_ROOT,
    // Load shedding off, as for every command a test runs: on a busy test machine the demo's event
    // loop lags past the default now and then, and it would answer the test's own login 503.
    env: { ...process.env, ...SHEDDING_OFF, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const closed = new Promise((resolve) => child.once('close', resolve));
  return {
    output: () => output,
    seen: (pattern, timeoutMs = 60_000) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (match) {
            child.stdout.off('data', check);
            clearTimeout(timer);
            resolve(match);
          }
        };
        const timer = setTimeout(() => reject(new Error(`no ${pattern} in the demo's output:\n${output}`)), timeoutMs);
        child.stdout.on('data', check);
        check();
      }),
    stop: async () => {
      child.kill('SIGTERM');
      await closed;
    },
  };
}

const API_LINE = /API on (http:\/\/127\.0\.0\.1:\d+).*\n\nAPI key \(all permissions\): (sgw_\S+)/;
const LOGIN_LINES = /Control panel: +(http:\S+)\n +email: +(\S+)\n +one-time password: +(\S+)/;

describe('npm run demo', function () {
  this.timeout(90_000);
  const dataDir = tempDataDir('demo');
  after(() => dataDir.remove());
  let firstPassword: string;

  it('when a default port is taken, then it takes free ones, prints a key and a panel login that works, and an SMS sent with the key is shown going to delivered', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as AddressInfo).port;
    const demo = startDemo({ DATA_DIR: dataDir.dir, MQTT_PORT: String(taken) });
    try {
      const [, base, key] = await demo.seen(API_LINE);
      expect(demo.output()).to.contain('a default port is in use');
      expect(demo.output()).to.contain('curl -s -X POST');
      // The panel login: the administrator created at first start, with a password that works.
      const [, panel, email, password] = await demo.seen(LOGIN_LINES);
      firstPassword = password!;
      expect(panel).to.equal(`${base}/`);
      const login = await new ApiClient(`${base}/api/ext/v1`, undefined).post('/session', { email, password });
      expect(login.status, JSON.stringify(login.body)).to.equal(200);
      const created = await new ApiClient(`${base}/api/ext/v1`, key).post('/sms', { phone: '+79161234567', message: 'demo test' });
      expect(created.status).to.equal(201);
      const id = (created.body.id as string).slice(0, 8);
      await demo.seen(new RegExp(`SMS ${id}: .*delivered`));
      expect(demo.output()).to.match(new RegExp(`SMS ${id} to \\+7916\\*+67: pending`));
      expect(demo.output()).to.match(new RegExp(`SMS ${id}: .*sent`));
    } finally {
      await demo.stop();
      squatter.close();
    }
  });

  it('when it runs again on the same data directory and the password was never changed, then it prints a new one-time password that works', async () => {
    // Only the first password's hash was stored: the demo cannot print it again, so it issues another.
    const demo = startDemo({ DATA_DIR: dataDir.dir, MQTT_PORT: '0' });
    try {
      const [, base] = await demo.seen(API_LINE);
      const [, , email, password] = await demo.seen(LOGIN_LINES);
      expect(password).not.to.equal(firstPassword);
      const session = new ApiClient(`${base}/api/ext/v1`, undefined);
      expect((await session.post('/session', { email, password })).status).to.equal(200);
      expect((await session.post('/session', { email, password: firstPassword })).status, 'the first one-time password is void').to.equal(401);
    } finally {
      await demo.stop();
    }
  });
});
