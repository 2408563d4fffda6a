// The inbox in the panel: conversations listed with their unread counts, a thread opened (and
// so marked read), a reply sent through the phone the conversation uses, and an SMS received
// while the thread is open showing without a reload.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { quickPhone, smsReaches } from './support/seed.ts';

const CUSTOMER = '+12025550141';

describe('panel: inbox', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('a received SMS shows in the inbox; its thread is read, answered through its phone, and follows new SMS live', async (page) => {
    await quickPhone(gw, 'Spare phone');
    const phone = await quickPhone(gw, 'Reception phone');
    expect((await gw.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
    await phone.receive(CUSTOMER, 'Is the table for four free tonight?');

    await owner.enter(page);
    await openPanel(page, '/inbox', 'Inbox');
    const row = page.locator(`tr[data-unread="1"]`, { hasText: CUSTOMER });
    await row.waitFor();
    expect(await row.textContent()).to.include('Is the table for four free tonight?');

    await row.getByRole('link', { name: CUSTOMER }).click();
    await page.getByRole('heading', { level: 1, name: `Conversation with ${CUSTOMER}` }).waitFor();
    await page.locator('tr[data-direction=incoming]', { hasText: 'Is the table for four free tonight?' }).waitFor();
    // Opening it marks it read.
    await eventually('the conversation read', async () => ((await gw.tenant.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}`)).body.unread_count === 0 ? true : undefined));
    await page.getByText('Sent through Reception phone, SIM 1').waitFor();

    await page.getByLabel('Reply', { exact: true }).fill('Yes, see you at 8');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.locator('tr[data-direction=outgoing]', { hasText: 'Yes, see you at 8' }).waitFor();
    const sent = (await gw.tenant.api.get(`/sms?phone=${encodeURIComponent(CUSTOMER)}`)).body.data[0];
    expect(sent).to.include({ message: 'Yes, see you at 8', device_id: phone.id, sim_slot: 0 });
    await smsReaches(gw, sent.id, 'delivered');

    // A mark in the page's memory: a reload would lose it.
    await page.evaluate(() => Object.assign(globalThis, { panelTestMark: true }));
    await phone.receive(CUSTOMER, 'Perfect, thanks!');
    await page.locator('tr[data-direction=incoming]', { hasText: 'Perfect, thanks!' }).waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (globalThis as { panelTestMark?: boolean }).panelTestMark)).to.equal(true);

    // A data SMS has no text to show: the thread says what it is and links its page.
    const data = await gw.tenant.api.post('/sms/data', { phone: CUSTOMER, data: 'AQI=', port: 5000 });
    expect(data.status, JSON.stringify(data.body)).to.equal(201);
    await page.reload();
    await page.locator('tr[data-direction=outgoing]').getByRole('link', { name: 'Data SMS (its payload and port)' }).click();
    await page.waitForURL(new RegExp(`#/sms/${data.body.id}$`));
  });
});
