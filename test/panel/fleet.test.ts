// Fleet health in the panel: the Fleet page shows each device's and SIM's figures for the chosen
// range (from SMS a real MQTT phone sent, failed and had delivered), its health, a CSV download of
// the same figures, and the canary settings an owner saves and runs; the device page shows the
// device's health (state, reasons, per-SIM state) and marks it healthy; the dashboard names the
// degraded devices. The SIM's degraded state is written to sim_health as the canary rounds'
// health judge writes it. A gateway without fleet health (its answers replaced by 404 in the
// browser) shows "not available" and the rest of each page.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { TaskPhone } from '../support/task-phone.ts';
import { checkA11y, openPanel, screenshot, settled, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { degradeSim } from '../support/test-data.ts';

const NO_LIMITS = { per_minute: null, per_hour: null, per_day: null };

describe('panel: fleet', function () {
  // A page that loads figures, a CSV download and canary rounds: more than one quick look.
  this.timeout(60_000);
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  /** A phone with SIMs 0 and 1 that sent one SMS (delivered) and failed one, both from SIM 0. */
  async function busyPhone(name: string): Promise<TaskPhone> {
    const phone = await gw.taskPhone({ send_window: 10, limits: NO_LIMITS, name_custom: name });
    const cards = [0, 1].map((index) => ({ index, name_operator: `Operator ${index}` }));
    await phone.client.publishAsync(deviceTopic(phone.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: cards }), { qos: 2 });
    const ids: string[] = [];
    for (const text of ['first', 'second']) {
      const created = await gw.tenant.api.post('/sms', { phone: '+79161234567', message: text, device_id: phone.id });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      ids.push(created.body.id);
    }
    await phone.until(2);
    for (const id of ids) await phone.report(id, 'processing');
    await phone.reportWith(ids[0]!, 'sent', { sim_slot: 0 });
    await phone.report(ids[0]!, 'delivered');
    await phone.reportWith(ids[1]!, 'failed_send', { error: 'radio off', sim_slot: 0 });
    return phone;
  }

  async function degrade(deviceId: string, slot: number): Promise<void> {
    await degradeSim(gw.gateway, deviceId, slot, 'send', 'its canaries did not reach two receivers that others reached');
  }

  function cellsOf(page: Page, deviceId: string, sim: string) {
    return page.locator(`tr[data-device="${deviceId}"][data-sim="${sim}"] > *`).allTextContents();
  }

  browser.scenario('the Fleet page shows each device and SIM with its figures and health, downloads them as CSV, and saves and runs the canary rounds', async (page) => {
    const phone = await busyPhone('Fleet phone A');
    await degrade(phone.id, 1);
    const health = await gw.tenant.api.get(`/devices/${phone.id}/health`);
    await owner.enter(page);
    await openPanel(page, '/fleet', 'Fleet');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fleet' }).waitFor();

    const device = await cellsOf(page, phone.id, 'all');
    // Device, Health, Sent, Failed, Delivered, Undelivered, Delivery ratio, ...
    expect(device[0]).to.equal('Fleet phone A');
    expect(device.slice(2, 7)).to.deep.equal(['1', '1', '1', '0', '100%']);
    const sim0 = await cellsOf(page, phone.id, '0');
    expect(sim0[0]).to.equal('SIM 1');
    expect(sim0.slice(2, 7)).to.deep.equal(['1', '1', '1', '0', '100%']);
    expect(device[9], 'no canary ended').to.equal('—');
    // The health shown is what GET /devices/{id}/health says (404: not available).
    if (health.status === 200) {
      await page.locator(`tr[data-device="${phone.id}"][data-sim="all"] [data-health="${health.body.state}"]`).waitFor();
      expect(health.body.state, 'a SIM degraded by the canary rounds').to.equal('degraded');
    } else {
      expect(health.status).to.equal(404);
      await page.locator(`tr[data-device="${phone.id}"][data-sim="all"] [data-health="not-available"]`).waitFor();
    }

    // The CSV link asks the same range as CSV, and the session's cookie opens it.
    const link = page.getByRole('link', { name: 'Download CSV' });
    const csvUrl = await link.getAttribute('href');
    expect(csvUrl).to.match(/^\/api\/ext\/v1\/stats\/devices\?from=.*&to=.*&format=csv$/);
    const csv = await page.request.get(csvUrl!);
    expect(csv.headers()['content-disposition']).to.match(/^attachment; filename="device-stats-/);
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines[0]).to.match(/^device_id,device_name,deleted,sim_slot,sent,failed_send,delivered,undelivered,delivery_ratio,/);
    expect(lines.some((line) => line.startsWith(`${phone.id},Fleet phone A,false,all,1,1,1,0,1,`))).to.equal(true);

    // A range with none of these SMS shows zeros, and no SIM rows; one of more than 366 days, the API's refusal.
    const shownFrom = await page.locator('[data-from]').getAttribute('data-from');
    await page.getByLabel('From').fill('2020-01-01');
    await page.getByLabel('To').fill('2020-01-07');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator(`[data-from]:not([data-from="${shownFrom}"])`).waitFor();
    expect((await cellsOf(page, phone.id, 'all')).slice(2, 4)).to.deep.equal(['0', '0']);
    expect(await page.locator(`tr[data-device="${phone.id}"][data-sim="0"]`).count()).to.equal(0);
    await page.getByLabel('To').fill('2021-06-01');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('alert').getByText('366 days').waitFor();

    // Canary rounds: saved through the API, and a round run now.
    const canary = await gw.tenant.api.get('/account/canary');
    const card = page.getByRole('region', { name: 'Canary rounds' });
    if (canary.status === 200) {
      // A refused value stays as typed beside its error, not replaced by the saved one.
      await card.getByLabel('Minutes between rounds').fill('0');
      await card.getByRole('button', { name: 'Save settings' }).click();
      await card.locator('.field-invalid .field-error').waitFor();
      expect(await card.getByLabel('Minutes between rounds').inputValue()).to.equal('0');
      await card.getByLabel('Minutes between rounds').fill('30');
      await card.getByLabel('Run canary rounds').check();
      await card.getByRole('button', { name: 'Save settings' }).click();
      await card.getByText('Settings saved.').waitFor();
      expect((await gw.tenant.api.get('/account/canary')).body).to.include({ enabled: true, interval_minutes: 30 });
      // Fewer than two SIMs with a known number: the API's refusal says so.
      await card.getByRole('button', { name: 'Run a round now' }).click();
      await card.getByRole('alert').waitFor();
      const numbered = await gw.tenant.api.patch(`/devices/${phone.id}/settings`, { sim_numbers: { 0: '+79160000101', 1: '+79160000102' }, forward_incoming_sms: true });
      expect(numbered.status, JSON.stringify(numbered.body)).to.equal(200);
      await card.getByRole('button', { name: 'Run a round now' }).click();
      await card.getByText('A round started').waitFor();
      expect(await card.getByRole('alert').count(), 'the refusal is gone').to.equal(0);
      expect((await gw.tenant.api.get('/account/canary')).body.last_round_at, 'the round started').to.not.equal(null);
    } else {
      expect(canary.status).to.equal(404);
      await card.getByText('not available').waitFor();
    }
    await screenshot(page, 'fleet');
    await checkA11y(page, 'fleet page');
  });

  browser.scenario('the device page shows its health, per SIM, and an owner marks it healthy; the dashboard names degraded devices', async (page) => {
    const phone = await busyPhone('Fleet phone B');
    await degrade(phone.id, 0);
    const health = await gw.tenant.api.get(`/devices/${phone.id}/health`);
    await owner.enter(page);

    await openPanel(page, '/', 'Dashboard');
    const degraded = page.getByRole('region', { name: 'Degraded devices' });
    await degraded.getByRole('link', { name: 'Fleet phone B' }).waitFor();
    expect(await degraded.getByRole('link', { name: 'Fleet phone B' }).getAttribute('href')).to.equal(`#/devices/${phone.id}`);
    const count = Number(await degraded.getByTestId('degraded-count').textContent());
    expect(count).to.be.at.least(1);

    await degraded.getByRole('link', { name: 'Fleet phone B' }).click();
    await page.getByRole('heading', { level: 1, name: 'Fleet phone B' }).waitFor();
    await settled(page);
    const card = page.getByRole('region', { name: 'Health' });
    if (health.status !== 200) {
      expect(health.status).to.equal(404);
      await card.getByText('not available').waitFor();
      return;
    }
    await card.locator('p [data-health="degraded"]').waitFor();
    const sim = card.locator('tr[data-sim="0"]');
    await sim.locator('[data-health="degraded"]').waitFor();
    expect(await sim.textContent()).to.include('fails to send');
    for (const reason of health.body.reasons as { detail: string }[]) await card.getByText(reason.detail).first().waitFor();
    await screenshot(page, 'device-health-degraded');
    await checkA11y(page, 'device page with its health');

    page.once('dialog', (dialog) => void dialog.accept());
    await card.getByRole('button', { name: 'Mark healthy' }).first().click();
    await card.locator('p [data-health="degraded"]').waitFor({ state: 'detached' });
    const after = await gw.tenant.api.get(`/devices/${phone.id}/health`);
    expect(after.body.sims.find((each: { sim_slot: number }) => each.sim_slot === 0).state).to.not.equal('degraded');
    expect(after.body.state).to.not.equal('degraded');
    await card.locator(`p [data-health="${after.body.state}"]`).waitFor();
    expect(await card.getByRole('button', { name: 'Mark healthy' }).count(), 'nothing left to mark').to.equal(0);
  });

  browser.scenario('a gateway without fleet health (its answers replaced by 404) shows "not available" and the rest of each page', async (page) => {
    const phone = await busyPhone('Fleet phone C');
    await owner.enter(page);
    const absent = { status: 404, contentType: 'application/json', body: JSON.stringify({ error: { code: 'not_found', message: 'Not found' } }) };
    await page.route(/\/api\/ext\/v1\/devices\/[^/]+\/health$/, (route) => route.fulfill(absent));
    await page.route(/\/api\/ext\/v1\/account\/canary$/, (route) => route.fulfill(absent));

    await openPanel(page, '/fleet', 'Fleet');
    await page.locator(`tr[data-device="${phone.id}"][data-sim="all"] [data-health="not-available"]`).waitFor();
    expect((await cellsOf(page, phone.id, 'all')).slice(2, 4)).to.deep.equal(['1', '1']);
    await page.locator('[data-canary-settings="not-available"]').waitFor();

    await openPanel(page, `/devices/${phone.id}`, 'Fleet phone C');
    await page.getByRole('region', { name: 'Health' }).getByText('not available').waitFor();
    // The rest of the device page is there.
    await page.getByRole('button', { name: 'Delete device' }).waitFor();
  });
});
