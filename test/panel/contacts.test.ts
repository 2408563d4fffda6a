// Contacts in the panel: one added from the form, a CSV file previewed row by row (a wrong row
// blocks the import), then imported once fixed; a group and a template created.
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: contacts', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');
  const files = mkdtempSync(join(tmpdir(), 'contacts-csv-'));

  browser.scenario('a contact added, a CSV previewed and imported, a group and a template created', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/contacts', 'Contacts');

    await page.getByLabel('Name', { exact: true }).fill('Anna Schmidt');
    await page.getByLabel('Number', { exact: true }).fill('+491701234501');
    await page.getByLabel('Tags', { exact: true }).fill('vip, berlin');
    await page.getByRole('button', { name: 'Add contact' }).click();
    await page.locator('.contacts-table tr', { hasText: 'Anna Schmidt' }).waitFor();

    const bad = join(files, 'bad.csv');
    writeFileSync(bad, 'name,phone,company\nBob,+491701234502,ACME\nCarla,not a number,\n');
    await page.getByLabel('CSV file').setInputFiles(bad);
    await page.locator('.contact-import-preview tr[data-valid=false]', { hasText: 'not a valid phone number' }).waitFor();
    expect(await page.getByRole('button', { name: /^Import \d+ contacts$/ }).isDisabled()).to.equal(true);

    const good = join(files, 'good.csv');
    writeFileSync(good, 'name,phone,company\nBob,+491701234502,ACME\nAnna S.,+491701234501,\n');
    await page.getByLabel('CSV file').setInputFiles(good);
    await page.locator('.contact-import-preview tr[data-valid=true]', { hasText: 'Updates a contact' }).waitFor();
    await page.getByRole('button', { name: 'Import 2 contacts' }).click();
    await page.getByRole('status').filter({ hasText: 'Imported: 1 new, 1 updated.' }).waitFor();
    await page.locator('.contacts-table tr', { hasText: 'company: ACME' }).waitFor();
    const contacts = (await gw.tenant.api.get('/contacts')).body.data;
    expect(contacts.map((contact: any) => contact.name)).to.have.members(['Bob', 'Anna S.']);

    await page.getByLabel('Group name').fill('Regulars');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('table', { name: 'Contact groups' }).getByText('Regulars').waitFor();

    await page.getByLabel('Template name').fill('Greeting');
    await page.getByLabel('Template text').fill('Hi {{first_name}}');
    await page.getByTestId('segment-count').filter({ hasText: /17 characters · 1 SMS/ }).waitFor();
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('table', { name: 'Message templates' }).getByText('Hi {{first_name}}').waitFor();
    expect((await gw.tenant.api.get('/templates')).body.data.map((template: any) => template.name)).to.deep.equal(['Greeting']);
  });
});
