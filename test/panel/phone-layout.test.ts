// The panel as a newcomer meets it on a phone (390 px wide) and on the send form: the character
// counter warns past the 170-character limit before Send is pressed, and the incoming SMS, calls
// and API keys tables fit the screen: no sideways scrolling, a key's name on one line rather
// than a letter a line, its Revoke button on screen, the received time clear of the device link.
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, PHONE, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { quickPhone, recordedCalls } from './support/seed.ts';

async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const found = await locator.boundingBox();
  if (!found) throw new Error('not drawn');
  return found;
}

/** The page is no wider than the screen: nothing to scroll sideways, inside a table either. */
async function fitsWidth(page: Page): Promise<void> {
  const widths = await page.evaluate(() => {
    const doc = (globalThis as unknown as { document: any }).document;
    const wraps = [...doc.querySelectorAll('.table-wrap')].map((wrap: any) => wrap.scrollWidth - wrap.clientWidth);
    return { page: doc.documentElement.scrollWidth, overflow: Math.max(0, ...wraps) };
  });
  expect(widths).to.deep.equal({ page: PHONE.width, overflow: 0 });
}

function overlaps(a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('panel: the send form\'s limit and tables on a phone', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('the character counter says a text is over the 170-character limit before Send', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/send');
    const message = page.getByLabel('Message', { exact: true });
    await message.fill('a'.repeat(170));
    expect(await page.getByTestId('segment-count-over').count()).to.equal(0);
    await message.fill('a'.repeat(173));
    expect(await page.getByTestId('segment-count-over').textContent()).to.equal(' · 3 over the 170-character limit: shorten it to send');
  });

  browser.scenario('incoming SMS, calls and API keys fit 390 px: no sideways scroll, nothing overlapping, Revoke on screen', async (page) => {
    const phone = await quickPhone(gw, 'Reception phone with a long name');
    expect((await gw.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
    await phone.receive('+120255501419999', 'Is the table for four free tonight?');
    await recordedCalls(gw, phone);
    const named = 'Integration key for the billing system';
    expect((await gw.tenant.api.post('/keys', { name: named, permissions: ['sms:read'] })).status).to.equal(201);

    await page.setViewportSize(PHONE);
    await owner.enter(page);

    await openPanel(page, '/incoming', 'Incoming SMS');
    const row = page.locator('table.incoming-table tbody tr', { hasText: 'Is the table for four free tonight?' });
    await row.waitFor();
    await fitsWidth(page);
    const time = await box(row.locator('td').first());
    const device = await box(row.getByRole('link', { name: /Reception phone/ }));
    expect(overlaps(time, device), 'the received time and the device link overlap').to.equal(false);

    await openPanel(page, '/calls', 'Calls');
    await page.locator('tbody tr').nth(1).waitFor();
    await fitsWidth(page);

    await openPanel(page, '/keys', 'API keys');
    const keyRow = page.locator('tbody tr', { hasText: named });
    await fitsWidth(page);
    const name = await box(keyRow.getByText(named));
    // A name broken a letter a line is a few pixels wide and very tall; this one is a line or two.
    expect(name.width, 'the key name\'s width').to.be.above(150);
    const revoke = await box(keyRow.getByRole('button', { name: /Revoke key/ }));
    expect(revoke.x + revoke.width, 'the Revoke button\'s right edge').to.be.at.most(PHONE.width);
  });
});
