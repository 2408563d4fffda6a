// Contacts in the panel: one added from the form, a CSV file previewed row by row (a wrong number
// or tag is its row's problem; a wrong row blocks the import), then imported once fixed; a group
// and a template created; a send to a tag previewed per recipient and sent.
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { quickPhone, smsReaches } from './support/seed.ts';

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
    // A bad tag is its row's problem too, beside the other rows' results.
    writeFileSync(bad, 'name,phone,company,tags\nBob,+491701234502,ACME,\nCarla,not a number,,\nDan,+491701234503,,has space\n');
    await page.getByLabel('CSV file').setInputFiles(bad);
    await page.locator('.contact-import-preview tr[data-valid=false]', { hasText: 'phone must be a valid phone number' }).waitFor();
    await page.locator('.contact-import-preview tr[data-valid=false]', { hasText: 'tags.0 is not in the expected form' }).waitFor();
    await page.locator('.contact-import-preview tr[data-valid=true]', { hasText: 'New' }).waitFor();
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
    // Bob joins the group from the contacts table; filtered by the group, he is its one member, and leaves it again.
    await page.getByLabel('Add Bob to a group').selectOption({ label: 'Regulars' });
    await page.getByRole('table', { name: 'Contact groups' }).locator('tr', { hasText: 'Regulars' }).filter({ hasText: '1' }).waitFor();
    await page.getByLabel('Group', { exact: true }).first().selectOption({ label: 'Regulars' });
    await page.getByRole('button', { name: 'Remove Bob from the group' }).waitFor();
    // The filtered page replaces the whole list: wait for its other rows to go, then count.
    await page.locator('.contacts-table tbody tr').nth(1).waitFor({ state: 'detached' });
    expect(await page.locator('.contacts-table tbody tr').count()).to.equal(1);
    const [group] = (await gw.tenant.api.get('/contact-groups')).body.data;
    expect((await gw.tenant.api.get(`/contacts?group_id=${group.id}`)).body.data.map((contact: any) => contact.name)).to.deep.equal(['Bob']);
    await page.getByRole('button', { name: 'Remove Bob from the group' }).click();
    await page.locator('.contacts-table', { hasText: 'No contact' }).or(page.getByText(/No contact/)).first().waitFor();
    expect((await gw.tenant.api.get(`/contact-groups/${group.id}`)).body.members).to.equal(0);
    await page.getByLabel('Group', { exact: true }).first().selectOption({ label: 'All contacts' });

    await page.getByLabel('Template name').fill('Greeting');
    await page.getByLabel('Template text').fill('Hi {{first_name}}');
    await page.getByTestId('segment-count').filter({ hasText: /17 characters · 1 SMS/ }).waitFor();
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('table', { name: 'Message templates' }).getByText('Hi {{first_name}}').waitFor();
    expect((await gw.tenant.api.get('/templates')).body.data.map((template: any) => template.name)).to.deep.equal(['Greeting']);
  });

  browser.scenario('a send to a tag is previewed per recipient (text, segments, what is missing) and sent once nothing is', async (page) => {
    // A phone that delivers at once: the SMS sent reach delivered.
    await quickPhone(gw, 'Shop phone');
    for (const [name, number, fields] of [['Dora Day', '+491701234511', { company: 'ACME' }], ['Emil', '+491701234512', {}]] as const) {
      expect((await gw.tenant.api.post('/contacts', { name, phone: number, tags: ['newsletter'], fields })).status).to.equal(201);
    }
    await owner.enter(page);
    await openPanel(page, '/contacts', 'Contacts');
    await page.getByLabel('Tag', { exact: true }).last().fill('newsletter');
    await page.getByLabel('Text', { exact: true }).fill('Hi {{first_name}} from {{fields.company}}');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('.contact-send-preview tr[data-valid=true]', { hasText: 'Hi Dora from ACME' }).waitFor();
    await page.locator('.contact-send-preview tr[data-valid=false]', { hasText: 'the contact has no value for {{fields.company}}' }).waitFor();
    expect(await page.getByRole('button', { name: 'Send 2 SMS' }).isDisabled()).to.equal(true);

    await page.getByLabel('Text', { exact: true }).fill('Hi {{first_name}}, new arrivals this week');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('.contact-send-preview tr[data-valid=true]', { hasText: '1 (GSM 7-bit)' }).first().waitFor();
    await page.getByRole('button', { name: 'Send 2 SMS' }).click();
    await page.getByRole('status').filter({ hasText: 'Created 2 SMS, one per recipient.' }).waitFor();
    const sent = (await gw.tenant.api.get('/sms')).body.data.filter((sms: any) => sms.message.endsWith('new arrivals this week'));
    expect(sent.map((sms: any) => sms.message)).to.have.members(['Hi Dora, new arrivals this week', 'Hi Emil, new arrivals this week']);
    for (const sms of sent) await smsReaches(gw, sms.id, 'delivered');
  });
});
