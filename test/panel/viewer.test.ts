// A viewer reads everything and changes nothing: the panel offers no change controls, and the
// API refuses a change made with the viewer's own session (cookie and CSRF token) anyway.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { browserSession } from './support/people.ts';

describe('panel: a viewer', () => {
  const gw = useGateway({ tenant: 'once', config: { webhooks: webhookConfig() } });
  const browser = useBrowser(() => gw.baseUrl);
  const viewer = useLoggedIn(gw, browser, 'viewer');

  browser.scenario('sees no Keys, Users or Accounts in the navigation', async (page) => {
    await viewer.enter(page);
    await openPanel(page, '/');
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of ['Dashboard', 'SMS', 'Send', 'Devices', 'Incoming', 'Webhooks']) {
      expect(await nav.getByRole('link', { name, exact: true }).count(), name).to.equal(1);
    }
    for (const name of ['API keys', 'Users', 'Accounts']) {
      expect(await nav.getByRole('link', { name, exact: true }).count(), name).to.equal(0);
    }
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
