// The dashboard's "SMS today" counts from the midnight of the person looking at it, not from the
// gateway's UTC midnight: in a zone 14 hours ahead of UTC, UTC's midnight is 14:00 of their day
// before or of today, and "today" would hold the wrong SMS.
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
});
