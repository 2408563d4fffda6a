// Users and accounts in the panel: a one-time password shown there logs its user in (and must be
// changed), role and disabling take effect in the API, and the instance administrator opens and
// disables accounts.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { tryLogin } from '../support/session-client.ts';
import { eventually } from '../support/webhooks.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { panelEmail, panelUser } from './support/people.ts';

describe('panel: users and accounts', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const admin = useLoggedIn(gw, browser, 'owner', { isAdmin: true });

  async function userByEmail(email: string) {
    return (await gw.gateway.services.users.findByEmail(email))!;
  }

  browser.scenario('a user added in the panel logs in with the one-time password shown once, and must change it', async (page) => {
    const email = panelEmail('added');
    await admin.enter(page);
    await openPanel(page, '/users');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Add user' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'One-time password' });
    const password = (await notice.getByTestId('shown-once').textContent())!.trim();

    const login = await tryLogin(gw.gateway, email, password);
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    expect(login.body.user).to.include({ email, role: 'viewer', must_change_password: true });
    await page.getByRole('row').filter({ hasText: email }).waitFor();
  });

  browser.scenario("a user's role, disabling and removal in the table are what the API then holds", async (page) => {
    const user = await panelUser(gw.gateway, gw.tenant.accountId, 'viewer');
    await admin.enter(page);
    await openPanel(page, '/users');
    const row = page.getByRole('row').filter({ hasText: user.email });

    await row.getByRole('combobox').selectOption('owner');
    await eventually('the role changed', async () => ((await userByEmail(user.email)).role === 'owner' ? true : undefined));

    await row.getByRole('button', { name: 'Disable', exact: true }).click();
    await row.getByRole('button', { name: 'Enable', exact: true }).waitFor();
    expect((await userByEmail(user.email)).disabled_at).to.not.equal(null);
    expect((await tryLogin(gw.gateway, user.email, user.password)).status).to.equal(401);
    await row.getByRole('button', { name: 'Enable', exact: true }).click();
    await row.getByRole('button', { name: 'Disable', exact: true }).waitFor();
    expect((await userByEmail(user.email)).disabled_at).to.equal(null);

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete', exact: true }).click();
    await row.waitFor({ state: 'detached' });
    expect(await gw.gateway.services.users.findByEmail(user.email)).to.equal(undefined);
  });

  browser.scenario('"Reset password" shows a new one-time password that logs the user in, and the old password stops working', async (page) => {
    const user = await panelUser(gw.gateway, gw.tenant.accountId, 'viewer');
    await admin.enter(page);
    await openPanel(page, '/users');
    const row = page.getByRole('row').filter({ hasText: user.email });
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Reset password' }).click();
    const password = (await page.getByRole('status').filter({ hasText: 'One-time password' }).getByTestId('shown-once').textContent())!.trim();
    expect((await tryLogin(gw.gateway, user.email, password)).status).to.equal(200);
    expect((await tryLogin(gw.gateway, user.email, user.password)).status).to.equal(401);
  });

  browser.scenario('the administrator opens an account with its first owner, whose one-time password works, and disables it', async (page) => {
    const name = `panel-${Date.now().toString(36)}`;
    const ownerEmail = panelEmail('first-owner');
    await admin.enter(page);
    await openPanel(page, '/accounts');
    await page.getByLabel('Account name').fill(name);
    await page.getByLabel('Owner email').fill(ownerEmail);
    await page.getByRole('button', { name: 'Create account' }).click();
    const password = (await page.getByTestId('shown-once').textContent())!.trim();
    const login = await tryLogin(gw.gateway, ownerEmail, password);
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    expect(login.body.user).to.include({ role: 'owner', must_change_password: true });

    const row = page.getByRole('row').filter({ hasText: name });
    await row.getByRole('button', { name: 'Disable', exact: true }).click();
    await row.getByRole('button', { name: 'Enable', exact: true }).waitFor();
    const account = await gw.gateway.services.accounts.require(name);
    expect(account.disabled_at).to.not.equal(null);
  });
});
