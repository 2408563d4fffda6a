// The panel's live updates come over one event stream for the whole tab: opened once logged in,
// shared by every page that follows events, closed at logout.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

/** Waits until <body> marks the stream `state` (undefined: no stream). The page runs the predicate: the server's tsconfig has no DOM types. */
async function liveMarked(page: Page, state: string | undefined): Promise<void> {
  await page.waitForFunction((expected) => (globalThis as unknown as { document: { body: { dataset: Record<string, string | undefined> } } }).document.body.dataset.live === expected, state);
}

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
    await liveMarked(page, 'connected');
    expect(streams).to.equal(1);

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    // The stream closes as the logged-in view goes, just after the login form shows.
    await liveMarked(page, undefined);
  });
});
