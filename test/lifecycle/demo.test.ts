// `npm run demo`: the gateway on the embedded defaults plus three simulated phones. It prints a
// key, a curl command and the panel's login, and an SMS sent with the key visibly goes
// pending -> sent -> delivered. A default port that is taken (here: the MQTT port) must not stop it.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { REPO_ROOT, tempDataDir } from '../support/cli.ts';
import { ApiClient } from '../support/tenant.ts';

describe('npm run demo', function () {
  this.timeout(90_000);

  it('when a default port is taken, then it takes free ones, prints a key and a panel login that works, and an SMS sent with the key is shown going to delivered', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as AddressInfo).port;
    const dataDir = tempDataDir('demo');
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATA_DIR: dataDir.dir, PORT: '0', MQTT_PORT: String(taken), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const seen = (pattern: RegExp, timeoutMs = 60_000) =>
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
      });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    try {
      const [, base, key] = await seen(/API on (http:\/\/127\.0\.0\.1:\d+).*\n\nAPI key \(all permissions\): (sgw_\S+)/);
      expect(output).to.contain('a default port is in use');
      expect(output).to.contain('curl -s -X POST');
      // The panel login: the administrator created at first start, with a password that works.
      const [, panel, email, password] = await seen(/Control panel: +(http:\S+)\n +email: +(\S+)\n +one-time password: +(\S+)/);
      expect(panel).to.equal(`${base}/`);
      const login = await new ApiClient(`${base}/api/ext/v1`, undefined).post('/session', { email, password });
      expect(login.status, JSON.stringify(login.body)).to.equal(200);
      const created = await new ApiClient(`${base}/api/ext/v1`, key).post('/sms', { phone: '+79161234567', message: 'demo test' });
      expect(created.status).to.equal(201);
      const id = (created.body.id as string).slice(0, 8);
      await seen(new RegExp(`SMS ${id}: .*delivered`));
      expect(output).to.match(new RegExp(`SMS ${id} to \\+7916\\*+67: pending`));
      expect(output).to.match(new RegExp(`SMS ${id}: .*sent`));
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
      squatter.close();
      dataDir.remove();
    }
  });
});
