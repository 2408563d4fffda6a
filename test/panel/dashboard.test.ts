// The dashboard: its cards say what GET /stats/summary says, its chart has words and numbers
// behind the picture, and it follows presence live.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { quickPhone, smsReaches } from './support/seed.ts';

describe('panel: dashboard', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  const card = (page: Page, title: string) => page.locator('.card').filter({ has: page.getByRole('heading', { name: title, exact: true }) });

  /** The number on the card whose heading is `title`. */
  async function cardNumber(page: Page, title: string): Promise<number> {
    const match = /(\d+)/.exec((await card(page, title).textContent()) ?? '');
    if (!match) throw new Error(`no number on the "${title}" card`);
    return Number(match[1]);
  }

  browser.scenario("the cards and the chart's numbers are the summary's, and a phone coming online counts without a reload", async (page) => {
    const phone = await quickPhone(gw, 'Dashboard phone');
    const sms = await gw.tenant.api.post('/sms', { phone: '+12025550171', message: 'Counted today' });
    await smsReaches(gw, sms.body.id, 'delivered');
    const { device: idle, token } = await gw.registerDevice('Idle phone');
    const summary = (await gw.tenant.api.get('/stats/summary')).body;

    await owner.enter(page);
    await openPanel(page, '/');
    expect(await cardNumber(page, 'Devices online')).to.equal(summary.devices.online);
    expect(await cardNumber(page, 'Devices offline')).to.equal(summary.devices.offline);
    expect(await cardNumber(page, 'Webhooks failing')).to.equal(0);
    expect(await page.locator('main').textContent()).to.include('Dashboard phone');

    const chart = page.locator('main svg[role=img]');
    expect(((await chart.getAttribute('aria-label')) ?? '').length).to.be.greaterThan(10);
    const hours = page.locator('main details table tbody tr');
    expect(await hours.count()).to.equal(24);
    const sentCells = await hours.locator('td:nth-child(2)').allTextContents();
    expect(sentCells.reduce((sum, cell) => sum + Number(cell.trim()), 0)).to.equal(summary.hourly.reduce((sum: number, hour: { sent: number }) => sum + hour.sent, 0));

    await page.evaluate(() => Object.assign(globalThis, { panelTestMark: true }));
    const second = gw.track(new SimulatedDevice({ ...phone.options, deviceId: idle.id, token, name: 'Idle phone' }));
    await second.connect();
    await card(page, 'Devices online').filter({ hasText: new RegExp(`(?<!\\d)${summary.devices.online + 1}(?!\\d)`) }).waitFor();
    expect(await page.evaluate(() => (globalThis as { panelTestMark?: boolean }).panelTestMark)).to.equal(true);
  });
});
