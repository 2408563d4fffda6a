// The control panel's first start, as an operator meets it: the real `sms-gateway serve` on an
// empty database (the embedded one with TEST_DATABASE=pglite, as `npm start` runs), the panel
// address and one-time password from the first-start banner, and Chromium: the password logs
// in, must be changed, and then a second API key is made and revoked in the panel while the
// gateway runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { GatewayProcess, killChildren, tempDataDir, type Env } from '../support/cli.ts';
import { emptyDatabase, type EmptyDatabase } from '../support/empty-database.ts';
import { testDatabase } from '../support/environment.ts';
import { ApiClient } from '../support/tenant.ts';
import { checkA11y, openPanel, screenshot, useBrowser } from '../panel/support/browser.ts';

const NEW_PASSWORD = 'chosen at first login';

describe('first start, in the browser: the banner\'s panel address and one-time password', function () {
  this.timeout(240_000);

  const target = testDatabase();
  let dataDir: ReturnType<typeof tempDataDir>;
  let database: EmptyDatabase | undefined;
  let gateway: GatewayProcess;
  let panelUrl: string;
  let email: string;
  let oneTimePassword: string;

  before(async function () {
    this.timeout(240_000);
    dataDir = tempDataDir('first-panel');
    const env: Env = { DATA_DIR: join(dataDir.dir, 'data'), PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info' };
    if (target.kind === 'postgres') {
      database = await emptyDatabase(target.adminUrl, 'first_panel');
      env.DATABASE_URL = database.url;
    }
    gateway = new GatewayProcess(['serve'], env);
    await gateway.waitForLog('gateway listening', 200_000);
    const line = await gateway.waitFor('the log line naming the banner file', 10_000, () =>
      gateway.logLines().find((each) => typeof each.file === 'string' && String(each.msg).startsWith('first start')),
    );
    const banner = readFileSync(line.file as string, 'utf8');
    panelUrl = /control panel at (\S+) /.exec(banner)![1]!;
    email = /email: +(\S+)$/m.exec(banner)![1]!;
    oneTimePassword = /one-time password: +(\S+)$/m.exec(banner)![1]!;
  });

  after(async () => {
    gateway?.kill();
    killChildren();
    await database?.drop();
    dataDir?.remove();
  });

  const browser = useBrowser(() => panelUrl);

  // A dozen page loads, three password hashes and an accessibility check against a gateway in a
  // process of its own: far more than the bound of one panel action, the scenarios' default.
  browser.scenario('the one-time password logs in, must be changed first, and then a second key is made and revoked', async (page) => {
    await page.goto(panelUrl);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(oneTimePassword);
    await page.getByRole('button', { name: 'Log in' }).click();

    await page.getByRole('heading', { level: 1, name: 'Choose your password' }).waitFor();
    await screenshot(page, 'first-start-choose-password');
    await checkA11y(page, 'first start: choose your password');
    await page.getByLabel('Current password').fill(oneTimePassword);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();

    await openPanel(page, '/keys');
    await page.getByLabel('Key name').fill('second key');
    await page.getByLabel('sms:read', { exact: true }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByRole('status').filter({ hasText: 'API key' }).getByTestId('shown-once').textContent())!.trim();
    const api = new ApiClient(new URL('/api/ext/v1', panelUrl).toString(), key);
    expect((await api.get('/sms')).status).to.equal(200);

    const row = page.getByRole('row').filter({ hasText: 'second key' });
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: /^Revoke key / }).click();
    await row.getByRole('button', { name: /^Revoke key / }).waitFor({ state: 'detached' });
    expect((await api.get('/sms')).status).to.equal(401);

    // The one-time password is spent.
    const relogin = await new ApiClient(new URL('/api/ext/v1', panelUrl).toString(), undefined).post('/session', { email, password: oneTimePassword });
    expect(relogin.status).to.equal(401);
  }, 90_000);
});
