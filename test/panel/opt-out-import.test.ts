// The opt-out list imported from a CSV file in the panel, as the README promises ("add, remove,
// import and export as CSV"): valid numbers are listed at once, a bad line is named.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: importing the opt-out list', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');
  const viewer = useLoggedIn(gw, browser, 'viewer');

  browser.scenario('a CSV file adds its numbers, lists them, and names the line that is no number', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/opt-out', 'Opt-out');
    await page.getByLabel('CSV file').setInputFiles({ name: 'stop.csv', mimeType: 'text/csv', buffer: Buffer.from('phone\n+79161230081\n+79161230082\nnot a number\n') });
    const done = page.getByRole('status').filter({ hasText: 'Added 2 numbers' });
    await done.waitFor();
    expect(await done.textContent()).to.include('line 4');
    await page.getByRole('row').filter({ hasText: '+79161230082' }).getByText('imported').waitFor();
    const listed = ((await gw.tenant.api.get('/suppressions')).body.data as { phone: string }[]).map((entry) => entry.phone);
    expect(listed).to.include.members(['+79161230081', '+79161230082']);
  });

  browser.scenario('a viewer gets no import', async (page) => {
    await viewer.enter(page);
    await openPanel(page, '/opt-out', 'Opt-out');
    expect(await page.getByLabel('CSV file').count()).to.equal(0);
  });
});
