// Sending from the panel: the form creates the SMS through the API, and its page follows the
// phone's reports live; a CSV upload is previewed row by row and only its valid rows are sent.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import type { Reply } from '../support/tenant.ts';
import { checkA11y, openPanel, screenshot, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

const PHONE_NUMBER = '+12025550123';
const CSV_PHONES = ['+12025550131', '+12025550133'];

describe('panel: sending SMS', () => {
  // One tenant for the file (see useLoggedIn): each test sends to numbers of its own and reads
  // back only those.
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  /** The phone numbers of the account's SMS among `phones`, one entry per SMS. */
  async function sentTo(phones: string[]): Promise<string[]> {
    const reply: Reply = await gw.tenant.api.get('/sms?limit=100');
    return reply.body.data.map((sms: { phone: string }) => sms.phone).filter((phone: string) => phones.includes(phone));
  }

  browser.scenario('an SMS sent from the form opens its page, which shows it reach "delivered" without a reload', async (page) => {
    // Reports a little apart, so the page is open while the status still changes.
    await gw.connectDevice({ delays: { processing: 150, sent: 150, delivered: 150 } });
    await owner.enter(page);
    await openPanel(page, '/send');

    await page.getByLabel('Message').fill('Your table is ready');
    await page.getByLabel('Phone numbers').fill(PHONE_NUMBER);
    const count = page.getByTestId('segment-count');
    expect(await count.getAttribute('aria-live')).to.equal('polite');
    await page.getByTestId('segment-count').filter({ hasText: /19 characters · 1 SMS/ }).waitFor();
    await page.getByRole('button', { name: 'Send SMS' }).click();

    await page.waitForURL(/#\/sms\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;
    await page.getByRole('heading', { level: 1, name: `SMS to ${PHONE_NUMBER}` }).waitFor();
    // A mark in the page's memory: a reload would lose it.
    await page.evaluate(() => Object.assign(globalThis, { panelTestMark: true }));
    await page.locator('[data-testid=sms-status] [data-status=delivered]').waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (globalThis as { panelTestMark?: boolean }).panelTestMark)).to.equal(true);

    const sms = await gw.tenant.api.get(`/sms/${id}`);
    expect(sms.body).to.include({ phone: PHONE_NUMBER, message: 'Your table is ready', status: 'delivered' });
    // The history on the page lists every step the API recorded.
    const history = sms.body.history as unknown[];
    expect(await page.locator('ol.timeline > li').count()).to.equal(history.length);
  });

  browser.scenario('an SMS to several numbers creates one per number and opens the SMS list', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/send');
    await page.getByLabel('Message').fill('Doors open at 9');
    await page.getByLabel('Phone numbers').fill('+12025550124,\n+12025550125');
    await page.getByRole('button', { name: 'Send SMS' }).click();
    await page.waitForURL(/#\/sms$/);
    expect(await sentTo(['+12025550124', '+12025550125'])).to.have.members(['+12025550124', '+12025550125']);
  });

  browser.scenario('a number the API refuses is shown beside the field and nothing is sent', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/send');
    await page.getByLabel('Message').fill('Hello');
    await page.getByLabel('Phone numbers').fill('not a number');
    const before = (await gw.tenant.api.get('/sms?limit=100')).body.data.length;
    await page.getByRole('button', { name: 'Send SMS' }).click();
    await page.getByRole('alert').first().waitFor();
    expect(page.url()).to.match(/#\/send$/);
    expect((await gw.tenant.api.get('/sms?limit=100')).body.data.length).to.equal(before);
  });

  browser.scenario('a CSV with one bad row: the preview shows its error, and "Send 2 valid SMS" creates exactly 2', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/send');
    await page.getByRole('link', { name: 'Bulk send from a CSV file' }).click();
    await page.waitForURL(/#\/send\/bulk$/);
    const csv = 'phone,message\n+12025550131,First of three\nnot-a-phone,Second of three\n+12025550133,Third of three\n';
    await page.getByLabel('CSV file').setInputFiles({ name: 'customers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });

    await page.locator('[data-valid]').nth(2).waitFor();
    expect(await page.locator('[data-valid]').count()).to.equal(3);
    expect(await page.locator('[data-valid="true"]').count()).to.equal(2);
    const bad = page.locator('[data-valid="false"]');
    expect(await bad.count()).to.equal(1);
    expect(await bad.textContent()).to.include('not-a-phone');
    expect((await bad.getByTestId('row-error').textContent())?.trim()).to.not.equal('');
    await screenshot(page, 'bulk-preview');
    await checkA11y(page, 'bulk preview');
    // The preview is a dry run: nothing exists yet.
    expect(await sentTo(CSV_PHONES)).to.deep.equal([]);

    await page.getByRole('button', { name: 'Send 2 valid SMS' }).click();
    const done = page.getByRole('status').filter({ hasText: 'Created 2 SMS.' });
    await done.waitFor();
    expect(await done.getByRole('link').count()).to.be.greaterThan(0);
    expect(await sentTo(CSV_PHONES)).to.have.members(['+12025550131', '+12025550133']);
  });

  browser.scenario('a CSV with no valid row offers nothing to send', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/send/bulk');
    await page.getByLabel('CSV file').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('phone,message\nnope,Hello\n') });
    await page.locator('[data-valid="false"]').waitFor();
    expect(await page.getByRole('button', { name: 'Send 0 valid SMS' }).isDisabled()).to.equal(true);
  });
});
