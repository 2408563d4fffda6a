// The administrator made at first start: on an empty database the first start prints, besides
// the key, the administrator's email and a one-time password that must be changed at first
// login. The real `serve` command on an empty database, with stdout and stderr piped, so the
// banner goes to first-start.txt; the password found there logs in over HTTP.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { GatewayProcess, killChildren, tempDataDir, type Env } from '../support/cli.ts';
import { testDatabase } from '../support/environment.ts';
import { emptyDatabase } from '../support/empty-database.ts';
import { ApiClient } from '../support/tenant.ts';

const ADMIN_EMAIL = 'Ops@Example.com';

describe('the administrator created at first start', function () {
  this.timeout(240_000);

  const target = testDatabase();
  let dataDir: ReturnType<typeof tempDataDir>;
  let database: { url: string; drop: () => Promise<void> } | undefined;
  let gateway: GatewayProcess;
  let api: ApiClient;
  let banner: string;

  before(async function () {
    this.timeout(240_000);
    dataDir = tempDataDir('first-admin');
    const env: Env = { DATA_DIR: join(dataDir.dir, 'data'), PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info', ADMIN_EMAIL };
    if (target.kind === 'postgres') {
      database = await emptyDatabase(target.adminUrl, 'first_admin');
      env.DATABASE_URL = database.url;
    }
    gateway = new GatewayProcess(['serve'], env);
    const port = (await gateway.waitForLog('gateway listening', 200_000)).port as number;
    const line = await gateway.waitFor('the log line naming the banner file', 10_000, () =>
      gateway.logLines().find((each) => typeof each.file === 'string' && String(each.msg).startsWith('first start')),
    );
    banner = readFileSync(line.file as string, 'utf8');
    api = new ApiClient(`http://127.0.0.1:${port}/api/ext/v1`, undefined);
  });

  after(async () => {
    gateway?.kill();
    killChildren();
    await database?.drop();
    dataDir?.remove();
  });

  const oneTimePassword = () => /one-time password: +(\S+)$/m.exec(banner)?.[1];

  it('the banner names the administrator (ADMIN_EMAIL, lowercased) and a one-time password, which no log holds', () => {
    expect(banner).to.match(/email: +ops@example\.com$/m);
    const password = oneTimePassword();
    expect(password, banner).to.match(/^[A-Za-z0-9_-]{24}$/);
    expect(gateway.stdout).to.not.contain(password!);
    expect(gateway.stderr).to.not.contain(password!);
  });

  it('the one-time password logs in as an owner and administrator who must change it, and can do nothing else until then', async () => {
    const login = await api.post('/session', { email: 'ops@example.com', password: oneTimePassword() });
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    expect(login.body.user).to.include({ email: 'ops@example.com', role: 'owner', is_admin: true, must_change_password: true });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = login.body.csrf_token as string;

    const blocked = await api.request('GET', '/devices', undefined, { cookie });
    expect(blocked.status).to.equal(403);
    expect(blocked.body.error.code).to.equal('password_change_required');

    const changed = await api.request('POST', '/session/password', { current_password: oneTimePassword(), new_password: 'the administrator now' }, { cookie, 'x-csrf-token': csrf });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(204);
    expect((await api.request('GET', '/devices', undefined, { cookie })).status).to.equal(200);
    expect((await api.post('/session', { email: 'ops@example.com', password: oneTimePassword() })).status).to.equal(401);
  });
});
