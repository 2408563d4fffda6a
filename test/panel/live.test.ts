// The panel's live updates come over one event stream for the whole tab: opened once logged in,
// shared by every page that follows events, closed at logout.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: live events', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('one stream serves every page of the tab, and logging out closes it', async (page) => {
    let streams = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/ext/v1/events') streams += 1;
    });
    await owner.enter(page);
    await openPanel(page, '/');
    // Every page here follows live events; moving between them keeps the one stream.
    for (const path of ['/sms', '/devices', '/incoming', '/']) await openPanel(page, path);
    await page.waitForFunction(() => (globalThis as unknown as { document: { body: { dataset: Record<string, string> } } }).document.body.dataset.live === 'connected');
    expect(streams).to.equal(1);

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as { document: { body: { dataset: Record<string, string> } } }).document.body.dataset.live)).to.equal(undefined);
  });
});
