// Every page of the panel, with data on it, passes axe-core (no serious or critical violation)
// at desktop width and is saved as a screenshot under test-results/panel/ for people to look at;
// the pages people open on a phone are also saved at 390 px.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { checkA11y, openPanel, PHONE, screenshot, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { seedAccount, type Seeded } from './support/seed.ts';

describe('panel: every page is accessible', () => {
  const gw = useGateway({ tenant: 'once', config: { webhooks: webhookConfig() } });
  const browser = useBrowser(() => gw.baseUrl);
  // An owner who is also the instance administrator sees every page, Accounts included.
  const admin = useLoggedIn(gw, browser, 'owner', { isAdmin: true });
  let seeded: Seeded;

  before(async function () {
    this.timeout(30_000);
    seeded = await seedAccount(gw);
  });

  const pages: [name: string, path: () => string][] = [
    ['dashboard', () => '/'],
    ['sms-list', () => '/sms'],
    ['sms-detail', () => `/sms/${seeded.smsIds[0]}`],
    ['send', () => '/send'],
    ['bulk', () => '/send/bulk'],
    ['devices', () => '/devices'],
    ['device-detail', () => `/devices/${seeded.deviceId}`],
    ['device-register', () => '/devices/new'],
    ['incoming', () => '/incoming'],
    ['inbox', () => '/inbox'],
    ['inbox-thread', () => `/inbox/${encodeURIComponent('+12025550199')}`],
    ['contacts', () => '/contacts'],
    ['calls', () => '/calls'],
    ['webhooks', () => '/webhooks'],
    ['webhook-detail', () => `/webhooks/${seeded.webhookId}`],
    ['keys', () => '/keys'],
    ['twilio', () => '/twilio'],
    ['smpp', () => '/smpp'],
    ['upstreams', () => '/upstreams'],
    ['opt-out', () => '/opt-out'],
    ['retention', () => '/retention'],
    ['inbound-rules', () => '/inbound-rules'],
    ['users', () => '/users'],
    ['accounts', () => '/accounts'],
    ['change-password', () => '/password'],
  ];

  for (const [name, path] of pages) {
    browser.scenario(`${name}: no serious or critical axe violation at 1280 px`, async (page) => {
      await admin.enter(page);
      await openPanel(page, path());
      await screenshot(page, name);
      await checkA11y(page, name);
    });
  }

  for (const name of ['dashboard', 'sms-list', 'send']) {
    browser.scenario(`${name}: no serious or critical axe violation at 390 px`, async (page) => {
      await page.setViewportSize({ ...PHONE });
      await admin.enter(page);
      await openPanel(page, pages.find(([pageName]) => pageName === name)![1]());
      await screenshot(page, `${name}-390`);
      await checkA11y(page, `${name} at 390 px`);
    });
  }

  for (const name of ['sms-list', 'webhook-detail', 'accounts']) {
    browser.scenario(`${name}: at 390 px a table that scrolls sideways keeps its first (key) column in view`, async (page) => {
      await page.setViewportSize({ ...PHONE });
      await admin.enter(page);
      await openPanel(page, pages.find(([pageName]) => pageName === name)![1]());
      const wrap = page.locator('main .table-wrap').first();
      // Scrolled all the way right, as someone reading the last column would.
      const scrolls = await wrap.evaluate((element) => {
        const box = element as unknown as { scrollWidth: number; clientWidth: number; scrollLeft: number };
        box.scrollLeft = box.scrollWidth;
        return box.scrollWidth > box.clientWidth;
      });
      expect(scrolls, 'the table is wider than the phone (otherwise nothing is hidden)').to.equal(true);
      const wrapBox = (await wrap.boundingBox())!;
      const keyCell = (await wrap.locator('tbody tr').first().locator('th, td').first().boundingBox())!;
      expect(keyCell.x, 'the key cell starts inside the visible part').to.be.at.least(wrapBox.x - 1);
      expect(keyCell.x + keyCell.width, 'the key cell ends inside the visible part').to.be.at.most(wrapBox.x + wrapBox.width + 1);
    });
  }

  browser.scenario('login: no serious or critical axe violation', async (page) => {
    await page.goto('/');
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await screenshot(page, 'login');
    await checkA11y(page, 'login');
  });
});
