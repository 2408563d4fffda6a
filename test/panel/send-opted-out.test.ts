// Sending from the panel to a number on the opt-out list: the refusal reads as words beside the
// numbers, never as the API's error code ("recipient_opted_out"), for one number and for several.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: sending to a number that opted out', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  async function refusalFor(page: import('playwright-core').Page, phones: string): Promise<string> {
    await openPanel(page, '/send', 'Send SMS');
    await page.getByLabel('Message', { exact: true }).fill('Your order is ready');
    await page.getByLabel('Phone numbers').fill(phones);
    await page.getByRole('button', { name: 'Send SMS' }).click();
    const error = page.locator('.field-error');
    await error.waitFor();
    return (await error.textContent()) ?? '';
  }

  browser.scenario('one number: "The recipient has opted out", without the code', async (page) => {
    expect((await gw.tenant.api.post('/suppressions', { phone: '+79161230091' })).status).to.equal(201);
    await owner.enter(page);
    const text = await refusalFor(page, '+79161230091');
    expect(text).to.match(/^The recipient has opted out/);
    expect(text).to.not.include('opted_out');
  });

  browser.scenario('several numbers: the opted-out one is named, then why', async (page) => {
    expect((await gw.tenant.api.post('/suppressions', { phone: '+79161230092' })).status).to.equal(201);
    await owner.enter(page);
    const text = await refusalFor(page, '+79161230093, +79161230092');
    expect(text).to.match(/^Number 2 \("\+79161230092"\): the recipient has opted out/);
    expect(text).to.not.include('opted_out');
  });
});
