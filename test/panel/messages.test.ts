// Messages in the panel: sending from the form (followed live to "delivered") and from a CSV
// file (previewed row by row, only valid rows sent); the SMS list and page, searched, followed
// live and cancelled; received SMS arriving live; and the dashboard's numbers. One gateway and
// one logged-in owner for the file (see useLoggedIn): each test uses phone numbers of its own and
// reads back only those.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import type { Reply } from '../support/tenant.ts';
import { useGateway } from '../support/use-gateway.ts';
import { checkA11y, loginAs, openPanel, screenshot, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { panelUser } from './support/people.ts';
import { quickPhone, smsReaches } from './support/seed.ts';

const PHONE_NUMBER = '+12025550123';
const CSV_PHONES = ['+12025550131', '+12025550133'];

describe('panel: messages', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  describe('sending SMS', () => {
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
      // The phone reported one SIM: it is offered by name, and no random choice among one.
      await page.getByLabel('Device').selectOption({ index: 1 });
      expect(await page.getByLabel('SIM').locator('option').allTextContents()).to.deep.equal(['Device default', 'SIM 1 (Simulated Mobile)']);
      await page.getByLabel('Device').selectOption({ index: 0 });

      await page.getByLabel('Message').fill('Your table is ready');
      await page.getByLabel('Phone numbers').fill(PHONE_NUMBER);
      const count = page.getByTestId('segment-count');
      expect(await count.getAttribute('aria-live')).to.equal('polite');
      await page.getByTestId('segment-count').filter({ hasText: /19 characters · 1 SMS/ }).waitFor();
      await page.getByRole('button', { name: 'Send SMS' }).click();

      // The form confirms the send and links the SMS; the numbers are cleared against a second click.
      const confirmation = page.getByRole('status').filter({ hasText: `SMS to ${PHONE_NUMBER} created` });
      await confirmation.waitFor();
      expect(await page.getByLabel('Phone numbers').inputValue()).to.equal('');
      await confirmation.getByRole('link', { name: 'Follow its status' }).click();
      await page.waitForURL(/#\/sms\/[0-9a-f-]{36}$/);
      const id = page.url().split('/').pop()!;
      await page.getByRole('heading', { level: 1, name: `SMS to ${PHONE_NUMBER}` }).waitFor();
      // A mark in the page's memory: a reload would lose it.
      await page.evaluate(() => Object.assign(globalThis, { panelTestMark: true }));
      await page.locator('[data-testid=sms-status] [data-status=delivered]').waitFor({ timeout: 10_000 });
      expect(await page.evaluate(() => (globalThis as { panelTestMark?: boolean }).panelTestMark)).to.equal(true);

      const sms = await gw.tenant.api.get(`/sms/${id}`);
      expect(sms.body).to.include({ phone: PHONE_NUMBER, message: 'Your table is ready', status: 'delivered' });
      // The history on the page lists every step the API recorded, the first one sent from this panel.
      const history = sms.body.history as unknown[];
      expect(await page.locator('ol.timeline > li').count()).to.equal(history.length);
      expect(sms.body.way_in).to.equal('panel');
      expect(await page.locator('ol.timeline > li').first().textContent()).to.contain('from the panel');
    });

    browser.scenario('an SMS to several numbers creates one per number and confirms it with a link to the SMS list', async (page) => {
      await owner.enter(page);
      await openPanel(page, '/send');
      await page.getByLabel('Message').fill('Doors open at 9');
      await page.getByLabel('Phone numbers').fill('+12025550124,\n+12025550125');
      await page.getByRole('button', { name: 'Send SMS' }).click();
      const confirmation = page.getByRole('status').filter({ hasText: 'Created 2 SMS' });
      await confirmation.waitFor();
      expect(await confirmation.getByRole('link').getAttribute('href')).to.equal('#/sms');
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

    browser.scenario('among several numbers, a bad one is named by its place counted from 1 and by what was typed, once', async (page) => {
      await owner.enter(page);
      await openPanel(page, '/send');
      await page.getByLabel('Message').fill('Hello');
      await page.getByLabel('Phone numbers').fill('+12025550126, not a number');
      await page.getByRole('button', { name: 'Send SMS' }).click();
      const fieldError = page.locator('.field-invalid .field-error');
      await fieldError.waitFor();
      const said = (await fieldError.textContent())!;
      expect(said).to.contain('Number 2 ("not a number")');
      expect(said).to.not.match(/message 1\b/);
      // Said beside the field only; the notice above points at the field instead of repeating it.
      const main = (await page.locator('main').textContent())!;
      expect(main.split('must be a valid phone number').length - 1).to.equal(1);
      expect(await page.getByRole('alert').textContent()).to.contain('Phone numbers');
      expect(await sentTo(['+12025550126'])).to.deep.equal([]);
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
      expect(await done.getByRole('link').getAttribute('href')).to.equal('#/sms');
      expect(await sentTo(CSV_PHONES)).to.have.members(['+12025550131', '+12025550133']);
      const created = ((await gw.tenant.api.get('/sms?limit=100')).body.data as { id: string; phone: string }[]).filter((sms) => CSV_PHONES.includes(sms.phone));
      for (const sms of created) expect((await gw.tenant.api.get(`/sms/${sms.id}`)).body.way_in, 'sent from the panel').to.equal('panel');
    });

    browser.scenario('a CSV with no valid row offers nothing to send', async (page) => {
      await owner.enter(page);
      await openPanel(page, '/send/bulk');
      await page.getByLabel('CSV file').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('phone,message\nnope,Hello\n') });
      await page.locator('[data-valid="false"]').waitFor();
      expect(await page.getByRole('button', { name: 'Send 0 valid SMS' }).isDisabled()).to.equal(true);
    });
  });

  describe('SMS and incoming SMS', () => {
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
      // Sent with an API key, not from the panel.
      expect(await page.locator('ol.timeline > li').first().textContent()).to.contain('by the API');
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

  describe('dashboard', () => {
    const card = (page: Page, title: string) => page.locator('.card').filter({ has: page.getByRole('heading', { name: title, exact: true }) });

    /** The number on the card whose heading is `title`. */
    async function cardNumber(page: Page, title: string): Promise<number> {
      const match = /(\d+)/.exec((await card(page, title).textContent()) ?? '');
      if (!match) throw new Error(`no number on the "${title}" card`);
      return Number(match[1]);
    }

    browser.scenario("the cards and the chart's numbers are the summary's, and a phone coming online counts without a reload", async (page) => {
      const phone = await quickPhone(gw, 'Dashboard phone');
      const sms = await gw.tenant.api.post('/sms', { phone: '+12025550171', message: 'Counted today' });
      await smsReaches(gw, sms.body.id, 'delivered');
      const { device: idle, token } = await gw.registerDevice('Idle phone');
      const summary = (await gw.tenant.api.get('/stats/summary')).body;

      await owner.enter(page);
      await openPanel(page, '/');
      expect(await cardNumber(page, 'Devices online')).to.equal(summary.devices.online);
      expect(await cardNumber(page, 'Devices offline')).to.equal(summary.devices.offline);
      expect(await cardNumber(page, 'Webhooks failing')).to.equal(0);
      expect(await page.locator('main').textContent()).to.include('Dashboard phone');

      const chart = page.locator('main svg[role=img]');
      expect(((await chart.getAttribute('aria-label')) ?? '').length).to.be.greaterThan(10);
      const hours = page.locator('main details table tbody tr');
      expect(await hours.count()).to.equal(24);
      const sentCells = await hours.locator('td:nth-child(2)').allTextContents();
      expect(sentCells.reduce((sum, cell) => sum + Number(cell.trim()), 0)).to.equal(summary.hourly.reduce((sum: number, hour: { sent: number }) => sum + hour.sent, 0));

      await page.evaluate(() => Object.assign(globalThis, { panelTestMark: true }));
      const second = gw.track(new SimulatedDevice({ ...phone.options, deviceId: idle.id, token, name: 'Idle phone' }));
      await second.connect();
      await card(page, 'Devices online').filter({ hasText: new RegExp(`(?<!\\d)${summary.devices.online + 1}(?!\\d)`) }).waitFor();
      expect(await page.evaluate(() => (globalThis as { panelTestMark?: boolean }).panelTestMark)).to.equal(true);
    });

    browser.scenario("today's SMS counts follow live SMS events: a new SMS counts as pending, then as delivered, without a reload", async (page) => {
      await owner.enter(page);
      await openPanel(page, '/');
      const count = async (status: string) => Number((await page.locator(`[data-status-count=${status}] .stat`).textContent().catch(() => '0')) ?? 0);
      const pendingBefore = await count('pending');
      const deliveredBefore = await count('delivered');
      await page.evaluate(() => Object.assign(globalThis, { panelTestMark: true }));

      // No phone online: the SMS waits, pending.
      const waiting = await gw.tenant.api.post('/sms', { phone: '+12025550172', message: 'Counted live' });
      expect(waiting.status).to.equal(201);
      await page.locator('[data-status-count=pending] .stat').filter({ hasText: new RegExp(`^${pendingBefore + 1}$`) }).waitFor();

      await quickPhone(gw, 'Live count phone');
      await smsReaches(gw, waiting.body.id, 'delivered');
      await page.locator('[data-status-count=delivered] .stat').filter({ hasText: new RegExp(`^${deliveredBefore + 1}$`) }).waitFor();
      expect(await page.evaluate(() => (globalThis as { panelTestMark?: boolean }).panelTestMark)).to.equal(true);
    });
  });

  describe('lists', () => {
    browser.scenario('in an account with nothing yet, every list says so; past a page of SMS, the pager walks older and newer', async (page) => {
      const empty = await gw.newTenant();
      const user = await panelUser(gw.gateway, empty.accountId, 'owner');
      await loginAs(page, user.email, user.password);
      for (const path of ['/sms', '/incoming', '/devices', '/webhooks']) {
        await openPanel(page, path);
        // Every list of the page says it is empty (Incoming has its SMS and its MMS).
        await page.locator('main .empty').first().waitFor();
        const empties = await page.locator('main .empty').allTextContents();
        expect(empties.length, path).to.be.above(0);
        for (const text of empties) expect(text.trim(), path).to.not.equal('');
        expect(await page.getByRole('navigation', { name: 'Pages' }).count(), path).to.equal(0);
      }

      // One more than the API's default page (50).
      const messages = Array.from({ length: 51 }, (_, index) => ({ phone: `+120255502${String(index).padStart(2, '0')}`, message: `Paged ${index}` }));
      expect((await empty.api.post('/sms/bulk', { messages })).status).to.equal(201);
      await openPanel(page, '/sms');
      const links = page.locator('main table').getByRole('link', { name: /^\+1202555/ });
      const firstPage = await links.allTextContents();
      expect(firstPage).to.have.length(50);
      const pager = page.getByRole('navigation', { name: 'Pages' });
      await pager.getByRole('button', { name: /Older/ }).click();
      await pager.getByText('Page 2').waitFor();
      // The page number changes at the click; the rows once the older page has loaded.
      await links.nth(1).waitFor({ state: 'detached' });
      // The 51st SMS, whichever it is (all were created in one transaction, at one time).
      const secondPage = await links.allTextContents();
      expect(secondPage).to.have.length(1);
      expect(new Set([...firstPage, ...secondPage]).size).to.equal(51);
      await pager.getByRole('button', { name: /Newer/ }).click();
      await pager.getByText('Page 1').waitFor();
      await links.nth(49).waitFor();
      expect(await links.count()).to.equal(50);
    });
  });
});
