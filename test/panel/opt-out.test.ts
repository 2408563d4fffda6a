// Opt-out and inbound rules in the panel: a number suppressed from the form is listed and refused
// by the API, Remove takes it off; the settings saved are the account's; a rule added from the
// form is listed and a sample SMS tried against it matches.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: opt-out and inbound rules', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('a number suppressed in the panel is listed and taken off again with Remove', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/opt-out');
    await page.getByRole('textbox', { name: 'Number', exact: true }).fill('+79161230077');
    await page.getByRole('button', { name: 'Suppress number' }).click();
    const row = page.getByRole('row').filter({ hasText: '+79161230077' });
    await row.getByText('added by hand').waitFor();
    const listed = (await gw.tenant.api.get('/suppressions')).body.data as { phone: string }[];
    expect(listed.map((entry) => entry.phone)).to.include('+79161230077');

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Remove +79161230077' }).click();
    await row.waitFor({ state: 'detached' });
    expect(((await gw.tenant.api.get('/suppressions')).body.data as { phone: string }[]).map((entry) => entry.phone)).to.not.include('+79161230077');
  });

  browser.scenario('a bad number is answered beside its field', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/opt-out');
    await page.getByRole('textbox', { name: 'Number', exact: true }).fill('not a number');
    await page.getByRole('button', { name: 'Suppress number' }).click();
    await page.locator('.field-error').first().waitFor();
  });

  browser.scenario('the settings saved are the account\'s', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/opt-out');
    await page.getByLabel('Answer to HELP').fill('Acme alerts. Reply STOP to end.');
    await page.getByLabel('Your own stop words').fill('basta, genug');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    expect((await gw.tenant.api.get('/account/opt-out')).body).to.deep.include({ help_text: 'Acme alerts. Reply STOP to end.', extra_keywords: ['basta', 'genug'] });
  });

  browser.scenario('a rule added in the panel is listed, and a sample SMS tried against it matches', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/inbound-rules');
    await page.getByLabel('Name').fill('opening hours');
    await page.getByLabel('Keyword').fill('hours');
    await page.getByLabel('Reply text').fill('We are open 9-18.');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('row').filter({ hasText: 'opening hours' }).getByText('reply "We are open 9-18."', { exact: false }).waitFor();
    const rules = (await gw.tenant.api.get('/inbound-rules')).body.data as { name: string; match_keyword: string; action: string }[];
    expect(rules.find((rule) => rule.name === 'opening hours')).to.include({ match_keyword: 'hours', action: 'auto_reply' });

    await page.getByLabel('Sample sender').fill('+79161234567');
    await page.getByLabel('Sample text').fill('Hours?');
    await page.getByRole('button', { name: 'Try the rules' }).click();
    await page.getByRole('status', { name: 'Dry run result' }).getByText('opening hours: matches').waitFor();
  });
});
