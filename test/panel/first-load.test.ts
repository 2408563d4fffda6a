// The panel's first load logs nothing in the browser's console: it asks whether a session is live
// (GET /session/status, 200 either way) instead of reading GET /session's 401, which Chromium
// logs as an error. Signed in, the same load leads to the panel, and after a reload too.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { settled, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: the first load', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('not logged in: the login form, and no error in the console', async (page) => {
    const answers: number[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/api/ext/v1/session')) answers.push(response.status());
    });
    await page.goto('/');
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(answers).to.deep.equal([200]);
    expect(browser.consoleErrors).to.deep.equal([]);
  });

  browser.scenario('logged in: a reload goes straight to the panel, with no error in the console', async (page) => {
    await owner.enter(page);
    await page.goto('/');
    await page.getByRole('button', { name: 'Log out' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Log out' }).waitFor();
    await settled(page);
    expect(browser.consoleErrors).to.deep.equal([]);
  });
});
