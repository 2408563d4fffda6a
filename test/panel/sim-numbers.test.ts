// The panel and each SIM's own number: a device's page lists its SIMs with their numbers and
// where each comes from (the phone, or the owner's settings); the owner types a number in the
// settings form, which then wins, and emptying the field brings the phone's number back.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { heartbeatRecorded } from '../support/legacy.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

const PHONE_NUMBER = '+79165550001';
const OWNER_NUMBER = '+79035550003';

describe('panel: SIM numbers', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('a SIM shows the number its phone reports; one typed in the settings wins, and emptied the phone\'s shows again', async (page) => {
    const phone = await gw.connectDevice({ simCards: [{ index: 0, name_operator: 'MTS', phone_number: PHONE_NUMBER }] });
    const recorded = heartbeatRecorded(gw.gateway, phone.id);
    await phone.heartbeat();
    await recorded;

    await owner.enter(page);
    await openPanel(page, `/devices/${phone.id}`);
    const sims = page.getByTestId('device-sims');
    await sims.filter({ hasText: `SIM 1 (MTS): ${PHONE_NUMBER}, reported by the phone` }).waitFor();
    const field = page.getByLabel('SIM 1 number');
    expect(await field.inputValue()).to.equal('');

    await field.fill('+7 903 555-00-03');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await sims.filter({ hasText: `SIM 1 (MTS): ${OWNER_NUMBER}, set in settings` }).waitFor();
    expect(await field.inputValue()).to.equal(OWNER_NUMBER);
    expect((await gw.tenant.api.get(`/devices/${phone.id}`)).body.sim_numbers).to.deep.equal({ '0': OWNER_NUMBER });

    await field.fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await sims.filter({ hasText: `SIM 1 (MTS): ${PHONE_NUMBER}, reported by the phone` }).waitFor();
    expect((await gw.tenant.api.get(`/devices/${phone.id}`)).body.sim_numbers).to.deep.equal({});
  });

  browser.scenario('a number the API refuses is shown beside its field and nothing is saved', async (page) => {
    const phone = await gw.connectDevice({ simCards: [{ index: 0, name_operator: 'MTS' }] });
    const recorded = heartbeatRecorded(gw.gateway, phone.id);
    await phone.heartbeat();
    await recorded;
    await owner.enter(page);
    await openPanel(page, `/devices/${phone.id}`);
    const field = page.getByLabel('SIM 1 number');
    await field.fill('not a number');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.locator('.field-invalid').filter({ hasText: 'sim_numbers.0' }).waitFor();
    expect(await field.getAttribute('aria-invalid')).to.equal('true');
    expect((await gw.tenant.api.get(`/devices/${phone.id}`)).body.sim_numbers).to.deep.equal({});
  });
});
