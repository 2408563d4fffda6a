// A device's page on a phone (390 px wide): its health card's SIM table, a row of figures and
// times wider than the screen, scrolls inside its own box; the page itself never scrolls sideways.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, PHONE, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { quickPhone } from './support/seed.ts';

describe('panel: a device page on a phone', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('the SIM health table scrolls in its box, the page fits 390 px', async (page) => {
    const phone = await quickPhone(gw, 'Reception phone');
    const health = await gw.tenant.api.get(`/devices/${phone.id}/health`);
    await page.setViewportSize(PHONE);
    await owner.enter(page);
    await openPanel(page, `/devices/${phone.id}`, 'Reception phone');
    // A gateway without fleet health shows no SIM table: nothing wide to check.
    if (health.status !== 200) return;
    const table = page.locator('table.sim-health-table');
    await table.waitFor();
    const widths = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
    expect(widths, 'the page scrolls sideways').to.equal(PHONE.width);
    expect(await table.evaluate((element) => element.parentElement!.classList.contains('table-wrap'))).to.equal(true);
  });
});
