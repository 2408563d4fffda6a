// The dashboard's "SMS today" counts from the midnight of the person looking at it, not from the
// gateway's UTC midnight: in a zone 14 hours ahead of UTC, UTC's midnight is 14:00 of their day
// before or of today, and "today" would hold the wrong SMS. The hourly chart reads the same
// person's hours: in a zone half an hour off UTC, its hours start on the person's full hour.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: the dashboard\'s day', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('"SMS today" is asked from the browser\'s own midnight', async (page) => {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTimezoneOverride', { timezoneId: 'Pacific/Kiritimati' });
    await owner.enter(page);
    const asked = page.waitForRequest((request) => request.url().includes('/api/ext/v1/stats/summary'));
    await openPanel(page, '/', 'Dashboard');
    const since = new URL((await asked).url()).searchParams.get('since');
    const midnight = await page.evaluate(() => {
      const now = new Date();
      return new Date(now.getFullYear(), now.getMonth(), now.getDate()).toISOString();
    });
    expect(since).to.equal(midnight);
    expect(new Date(midnight).getUTCHours()).to.equal(10);
  });

  browser.scenario("the hourly chart's hours are the browser's own, in a zone half an hour off UTC", async (page) => {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTimezoneOverride', { timezoneId: 'Asia/Kolkata' });
    await owner.enter(page);
    const answered = page.waitForResponse((response) => response.url().includes('/api/ext/v1/stats/summary'));
    await openPanel(page, '/', 'Dashboard');
    const { hourly } = (await (await answered).json()) as { hourly: { hour: string }[] };
    // Kolkata is 5:30 ahead of UTC: its full hours are half past a UTC hour.
    expect(hourly.map((bucket) => new Date(bucket.hour).getUTCMinutes())).to.deep.equal(Array(24).fill(30));
    await page.getByText('The numbers per hour').click();
    const labels = await page.locator('.chart-numbers tbody tr td:first-child').allTextContents();
    expect(labels).to.have.length(24);
    for (const label of labels) expect(label, 'a full hour of the browser\'s zone').to.match(/:00(\s?[AP]M)?$/);
  });
});
