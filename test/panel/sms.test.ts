// Reading SMS in the panel: the list links each SMS to its page and filters through the API's
// search, both follow the phones' reports live, an owner cancels a waiting SMS, and received
// SMS appear as they arrive.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { quickPhone } from './support/seed.ts';

describe('panel: SMS and incoming SMS', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  async function createSms(phone: string, message: string): Promise<string> {
    const reply = await gw.tenant.api.post('/sms', { phone, message });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body.id;
  }

  browser.scenario('the list links every SMS by its phone number to its page, and Search narrows it through the API', async (page) => {
    const first = await createSms('+12025550161', 'Invoice 42 is ready');
    await createSms('+12025550162', 'Your parcel has left');
    await owner.enter(page);
    await openPanel(page, '/sms');
    for (const label of ['Search', 'Status', 'Device', 'From', 'To']) expect(await page.getByLabel(label, { exact: true }).count(), label).to.equal(1);
    expect(await page.getByLabel('Status', { exact: true }).locator('option').first().textContent()).to.equal('Any status');
    expect(await page.getByLabel('Device', { exact: true }).locator('option').first().textContent()).to.equal('Any device');

    const link = page.getByRole('link', { name: '+12025550161' });
    expect(await link.getAttribute('href')).to.equal(`#/sms/${first}`);
    const row = page.getByRole('row').filter({ has: link });
    expect(await row.locator('[data-status]').getAttribute('data-status')).to.equal('pending');

    await page.getByLabel('Search', { exact: true }).fill('Invoice 42');
    await page.getByRole('link', { name: '+12025550162' }).waitFor({ state: 'detached' });
    expect(await page.getByRole('link', { name: '+12025550161' }).count()).to.equal(1);

    await link.click();
    await page.getByRole('heading', { level: 1, name: 'SMS to +12025550161' }).waitFor();
  });

  browser.scenario('an SMS sent while the list is open appears there and reaches "delivered" without a reload', async (page) => {
    await quickPhone(gw, 'List phone');
    await owner.enter(page);
    await openPanel(page, '/sms');
    await page.evaluate(() => Object.assign(globalThis, { panelTestMark: true }));
    await createSms('+12025550163', 'Sent while you watch');
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: '+12025550163' }) });
    await row.locator('[data-status=delivered]').waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (globalThis as { panelTestMark?: boolean }).panelTestMark)).to.equal(true);
  });

  browser.scenario('an owner cancels a waiting SMS from its page; the page shows the status the API then answers', async (page) => {
    // No phone of this test is online: the SMS waits.
    const id = await createSms('+12025550164', 'Cancel me');
    await owner.enter(page);
    await openPanel(page, `/sms/${id}`, 'SMS to +12025550164');
    await page.locator('[data-testid=sms-status] [data-status=pending]').waitFor();
    await page.getByRole('button', { name: 'Cancel SMS' }).click();
    await page.getByRole('button', { name: 'Cancel SMS' }).waitFor({ state: 'detached' });
    const after = await gw.tenant.api.get(`/sms/${id}`);
    expect(after.body.status).to.not.equal('pending');
    await page.locator(`[data-testid=sms-status] [data-status=${after.body.status}]`).waitFor();
    expect(await page.locator('ol.timeline > li').count()).to.equal(after.body.history.length);
  });

  browser.scenario('a received SMS appears in Incoming without a reload, with its phone number and text', async (page) => {
    const phone = await quickPhone(gw, 'Inbox phone');
    expect((await gw.tenant.api.patch(`/devices/${phone.options.deviceId}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
    await owner.enter(page);
    await openPanel(page, '/incoming');
    const deviceFilter = page.getByLabel('Device', { exact: true });
    expect(await deviceFilter.locator('option').first().textContent()).to.equal('All devices');
    await page.evaluate(() => Object.assign(globalThis, { panelTestMark: true }));

    await phone.receive('+12025550165', 'Can I move my booking?');
    const row = page.getByRole('row').filter({ hasText: 'Can I move my booking?' });
    await row.waitFor();
    expect(await row.textContent()).to.include('+12025550165');
    expect(await page.evaluate(() => (globalThis as { panelTestMark?: boolean }).panelTestMark)).to.equal(true);
  });
});
