// A busy gateway answers 503 overloaded with Retry-After: nothing was done, ask again shortly. The
// panel asks again by itself, so a passing rush never shows, and when the gateway stays busy it
// says so in a person's words (not "retry after the time Retry-After gives"). A gateway that
// cannot be reached is said in words too, never as the browser's "TypeError: Failed to fetch".
import { expect } from 'chai';
import type { Page, Route } from 'playwright-core';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

const WEBHOOKS = /\/api\/ext\/v1\/webhooks(\?.*)?$/;

function busy(route: Route): Promise<void> {
  return route.fulfill({
    status: 503,
    headers: { 'retry-after': '1', 'content-type': 'application/json' },
    body: JSON.stringify({ error: { code: 'overloaded', message: 'the gateway is at capacity; retry after the time Retry-After gives', details: [] } }),
  });
}

async function errorNotice(page: Page): Promise<string> {
  const notice = page.locator('main .notice-error').first();
  await notice.waitFor();
  return (await notice.textContent()) ?? '';
}

describe('panel: a busy or unreachable gateway', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('a list turned away once is asked for again and shown, with no error', async (page) => {
    let refused = 0;
    await page.route(WEBHOOKS, (route) => (route.request().method() === 'GET' && refused++ === 0 ? busy(route) : route.continue()));
    await owner.enter(page);
    await openPanel(page, '/webhooks', 'Webhooks');
    await page.getByRole('heading', { name: 'New webhook' }).waitFor();
    expect(refused).to.be.at.least(2);
    expect(await page.locator('main .notice-error').count()).to.equal(0);
  });

  browser.scenario('a gateway that stays busy is said in words, without Retry-After', async (page) => {
    await page.route(WEBHOOKS, busy);
    await owner.enter(page);
    await page.goto('/#/webhooks');
    const text = await errorNotice(page);
    expect(text).to.include('The gateway is busy right now');
    expect(text).to.not.include('Retry-After');
  }, 30_000);

  browser.scenario('a gateway that cannot be reached is said in words, not as a TypeError', async (page) => {
    await page.route(WEBHOOKS, (route) => route.abort('connectionrefused'));
    await owner.enter(page);
    await page.goto('/#/webhooks');
    const text = await errorNotice(page);
    expect(text).to.include('The gateway could not be reached');
    expect(text).to.not.include('TypeError');
  });
});
