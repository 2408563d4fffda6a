// The panel's front door in a browser: logging in, the forced change of a one-time password,
// and logging out, which must end the session on the gateway, not only in the page.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { ApiClient } from '../support/tenant.ts';
import { loginAs, useBrowser } from './support/browser.ts';
import { browserSession, oneTimeUser, panelUser } from './support/people.ts';

const NEW_PASSWORD = 'my own long password 1';

describe('panel: logging in and out', () => {
  const gw = useGateway();
  const browser = useBrowser(() => gw.baseUrl);

  browser.scenario('a user with a one-time password logs in, must choose a password first, then reaches the dashboard', async (page) => {
    const user = await oneTimeUser(gw.gateway, gw.tenant.accountId);
    await loginAs(page, user.email, user.password);

    await page.getByRole('heading', { level: 1, name: 'Choose your password' }).waitFor();
    // The navigation is there, but any page still answers with the password change.
    await page.getByRole('link', { name: 'SMS', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Choose your password' }).waitFor();

    await page.getByLabel('Current password').fill(user.password);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.goto('/#/');
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();

    const session = await browserSession(page, gw.baseUrl);
    expect((await session.get('/session')).body.user.must_change_password).to.equal(false);
    // The one-time password is spent; the new one works.
    expect((await new ApiClient(`${gw.baseUrl}/api/ext/v1`, undefined).post('/session', { email: user.email, password: user.password })).status).to.equal(401);
    expect((await new ApiClient(`${gw.baseUrl}/api/ext/v1`, undefined).post('/session', { email: user.email, password: NEW_PASSWORD })).status).to.equal(200);
  });

  browser.scenario('a wrong password shows the refusal on the form and logs nobody in', async (page) => {
    const user = await panelUser(gw.gateway, gw.tenant.accountId, 'owner');
    await loginAs(page, user.email, 'not the password at all', 'form');
    await page.getByRole('alert').filter({ hasText: /wrong/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Log out' }).count()).to.equal(0);
  });

  browser.scenario('logging out ends the session: the cookie the browser held gets 401 afterwards', async (page) => {
    const user = await panelUser(gw.gateway, gw.tenant.accountId, 'owner');
    await loginAs(page, user.email, user.password);
    const before = await browserSession(page, gw.baseUrl);
    expect((await before.get('/session')).status).to.equal(200);

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('status').filter({ hasText: 'You are logged out.' }).waitFor();
    await page.getByRole('button', { name: 'Log in' }).waitFor();

    expect((await before.get('/session')).status).to.equal(401);
    expect((await before.get('/sms')).status).to.equal(401);
    // A reload does not bring the session back.
    await page.reload();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
  });
});
