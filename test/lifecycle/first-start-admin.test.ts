// The administrator made at first start (issue 11: "First start on an empty database prints,
// besides the key, ... the administrator's email and a one-time password that must be changed
// at first login"). The real `serve` command on an empty database, with stdout and stderr piped,
// so the banner goes to first-start.txt; the password found there logs in over HTTP.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import knexModule from 'knex';
import { expect } from 'chai';
import { GatewayProcess, killChildren, tempDataDir, type Env } from '../support/cli.ts';
import { testDatabase } from '../support/environment.ts';
import { ApiClient } from '../support/tenant.ts';

const ADMIN_EMAIL = 'Ops@Example.com';

/** An empty PostgreSQL database for this file, and a way to drop it. */
async function emptyDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `sms_gateway_first_admin_${randomBytes(4).toString('hex')}`;
  const admin = () => knexModule.knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  const create = admin();
  await create.raw(`create database ${name}`).finally(() => create.destroy());
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const db = admin();
      await db.raw(`drop database if exists ${name} with (force)`).finally(() => db.destroy());
    },
  };
}

describe('the administrator created at first start', function () {
  this.timeout(90_000);

  const target = testDatabase();
  let dataDir: ReturnType<typeof tempDataDir>;
  let database: { url: string; drop: () => Promise<void> } | undefined;
  let gateway: GatewayProcess;
  let api: ApiClient;
  let banner: string;

  before(async function () {
    this.timeout(90_000);
    dataDir = tempDataDir('first-admin');
    const env: Env = { DATA_DIR: join(dataDir.dir, 'data'), PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info', ADMIN_EMAIL };
    if (target.kind === 'postgres') {
      database = await emptyDatabase(target.adminUrl);
      env.DATABASE_URL = database.url;
    }
    gateway = new GatewayProcess(['serve'], env);
    const port = (await gateway.waitForLog('gateway listening', 80_000)).port as number;
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
