// Who gets in and what they may do: logging in (and the forced change of a one-time password),
// logging out (which ends the session on the gateway, not only in the page), and a viewer, who
// reads everything and is offered no change, while the API refuses one made with the viewer's
// own session anyway.
import { expect } from 'chai';
import { ApiClient } from '../support/tenant.ts';
import { useGateway } from '../support/use-gateway.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';
import { loginAs, openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { browserSession, oneTimeUser, panelUser } from './support/people.ts';

const NEW_PASSWORD = 'my own long password 1';

describe('panel: access', () => {
  const gw = useGateway({ tenant: 'once', config: { webhooks: webhookConfig() } });
  const browser = useBrowser(() => gw.baseUrl);
  const viewer = useLoggedIn(gw, browser, 'viewer');

  describe('logging in and out', () => {
    browser.scenario('a user with a one-time password logs in, is offered only the password change and log out, then reaches the dashboard', async (page) => {
      const user = await oneTimeUser(gw.gateway, gw.tenant.accountId);
      await loginAs(page, user.email, user.password);

      await page.getByRole('heading', { level: 1, name: 'Choose your password' }).waitFor();
      expect(await page.getByRole('navigation', { name: 'Main' }).count(), 'no navigation before the change').to.equal(0);
      expect(await page.getByRole('button', { name: 'Menu' }).count()).to.equal(0);
      await page.getByRole('button', { name: 'Log out' }).waitFor();
      // A page typed into the address bar still answers with the password change.
      await page.goto('/#/sms');
      await page.getByRole('heading', { level: 1, name: 'Choose your password' }).waitFor();

      await page.getByLabel('Current password').fill(user.password);
      await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByLabel('New password again').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();

      const session = await browserSession(page, gw.baseUrl);
      expect((await session.get('/session')).body.user.must_change_password).to.equal(false);
      // The one-time password is spent; the new one works.
      expect((await new ApiClient(`${gw.baseUrl}/api/ext/v1`, undefined).post('/session', { email: user.email, password: user.password })).status).to.equal(401);
      expect((await new ApiClient(`${gw.baseUrl}/api/ext/v1`, undefined).post('/session', { email: user.email, password: NEW_PASSWORD })).status).to.equal(200);
    });

    browser.scenario('a refused new password is explained once, beside its field, by its label (never "new_password")', async (page) => {
      const user = await panelUser(gw.gateway, gw.tenant.accountId, 'owner');
      await loginAs(page, user.email, user.password);
      await openPanel(page, '/password', 'Change password');
      await page.getByLabel('Current password').fill(user.password);
      await page.getByLabel('New password', { exact: true }).fill('short');
      await page.getByLabel('New password again').fill('short');
      await page.getByRole('button', { name: 'Change password' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      const main = (await page.locator('main').textContent())!;
      expect(main).to.not.contain('new_password');
      expect(main.split('must be at least 12 characters').length - 1, 'the problem is said once').to.equal(1);
      expect(await page.locator('.field-invalid .field-error').textContent()).to.equal('New password must be at least 12 characters');
      expect(await alert.textContent()).to.contain('New password');
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

  describe('a viewer', () => {
    browser.scenario('sees no Send, Keys, Users or Accounts in the navigation', async (page) => {
      await viewer.enter(page);
      await openPanel(page, '/');
      const nav = page.getByRole('navigation', { name: 'Main' });
      for (const name of ['Dashboard', 'SMS', 'Devices', 'Incoming', 'Webhooks']) {
        expect(await nav.getByRole('link', { name, exact: true }).count(), name).to.equal(1);
      }
      for (const name of ['Send', 'API keys', 'Users', 'Accounts']) {
        expect(await nav.getByRole('link', { name, exact: true }).count(), name).to.equal(0);
      }
    });

    browser.scenario('finds the API reference in the navigation', async (page) => {
      await viewer.enter(page);
      await openPanel(page, '/');
      const docs = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API docs', exact: true });
      expect(await docs.getAttribute('href')).to.equal('/docs');
      await docs.click();
      await page.waitForURL(/\/docs\/?$/);
      expect((await fetch(`${gw.baseUrl}/docs`)).status).to.equal(200);
    });

    browser.scenario('gets no send form, only the reason', async (page) => {
      await viewer.enter(page);
      await openPanel(page, '/send');
      await page.getByText('Viewers cannot send SMS.').waitFor();
      expect(await page.getByRole('button', { name: 'Send SMS' }).count()).to.equal(0);
      expect(await page.getByLabel('Message').count()).to.equal(0);
    });

    browser.scenario('sees device settings in a disabled fieldset, and no register or delete', async (page) => {
      const { device } = await gw.registerDevice('Viewed phone');
      await viewer.enter(page);
      await openPanel(page, '/devices');
      expect(await page.getByRole('link', { name: 'Register a device' }).count()).to.equal(0);
      await openPanel(page, `/devices/${device.id}`);
      expect(await page.locator('fieldset[disabled]').count()).to.be.greaterThan(0);
      const save = page.getByRole('button', { name: 'Save settings' });
      if ((await save.count()) > 0) expect(await save.isDisabled()).to.equal(true);
      expect(await page.getByRole('button', { name: 'Delete device' }).count()).to.equal(0);
    });

    browser.scenario('sees webhooks without the form to create one, and no change buttons on one', async (page) => {
      const { webhook } = await createWebhook(gw.tenant, 'http://127.0.0.1:9/hook', ['sms.status_changed']);
      await viewer.enter(page);
      await openPanel(page, '/webhooks');
      await page.getByRole('link').filter({ hasText: '127.0.0.1:9' }).first().waitFor();
      expect(await page.getByRole('button', { name: 'Create webhook' }).count()).to.equal(0);
      await openPanel(page, `/webhooks/${webhook.id}`);
      for (const name of ['Rotate secret', 'Disable', 'Delete webhook']) {
        expect(await page.getByRole('button', { name, exact: true }).count(), name).to.equal(0);
      }
    });

    browser.scenario('sees an SMS without "Cancel SMS"', async (page) => {
      // No phone: the SMS waits, so an owner could cancel it.
      const sms = await gw.tenant.api.post('/sms', { phone: '+12025550151', message: 'Waiting' });
      await viewer.enter(page);
      await openPanel(page, `/sms/${sms.body.id}`, 'SMS to +12025550151');
      await page.locator('[data-testid=sms-status] [data-status=pending]').waitFor();
      expect(await page.getByRole('button', { name: 'Cancel SMS' }).count()).to.equal(0);
    });

    browser.scenario("the API refuses a change sent with the viewer's session cookie and CSRF token (403)", async (page) => {
      const { device } = await gw.registerDevice('Guarded phone');
      await viewer.enter(page);
      await openPanel(page, '/');
      const session = await browserSession(page, gw.baseUrl);
      expect((await session.get('/sms')).status, 'reading is allowed').to.equal(200);
      const send = await session.post('/sms', { phone: '+12025550152', message: 'Not allowed' });
      expect(send.status, JSON.stringify(send.body)).to.equal(403);
      const settings = await session.patch(`/devices/${device.id}/settings`, { can_send_sms: false });
      expect(settings.status, JSON.stringify(settings.body)).to.equal(403);
      expect((await gw.tenant.api.get(`/devices/${device.id}`)).body.can_send_sms).to.equal(true);
    });
  });
});
