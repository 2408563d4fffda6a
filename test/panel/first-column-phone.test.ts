// A wide table on a phone (390 px) scrolls sideways under its first column, which names the row:
// that column keeps room for a word, so a user's email does not stand a letter a line.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, PHONE, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: a wide table\'s first column on a phone', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('the users table keeps an email readable', async (page) => {
    await page.setViewportSize(PHONE);
    await owner.enter(page);
    await openPanel(page, '/users', 'Users');
    const email = page.locator('.table-wrap tbody tr').first().locator('th, td').first();
    const box = await email.boundingBox();
    expect(box!.width, 'the email column is squeezed').to.be.at.least(140);
  });
});
