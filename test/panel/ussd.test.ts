// The USSD console on a device's page: an owner dials a code on a (simulated) phone, picks its
// SIM, reads the network's answer, replies to a menu; a wrong code is explained beside the field;
// a viewer sees no console. Checked with axe like every page.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { checkA11y, openPanel, screenshot, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { quickPhone } from './support/seed.ts';

describe('panel: USSD console', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');
  const viewer = useLoggedIn(gw, browser, 'viewer');

  browser.scenario('an owner dials *100#, reads the balance, then answers the *111# menu and reads its final answer', async (page) => {
    const phone = await quickPhone(gw, 'USSD phone');
    await owner.enter(page);
    await openPanel(page, `/devices/${phone.id}`);
    const console_ = page.getByRole('region', { name: 'USSD', exact: true });
    await console_.getByRole('textbox', { name: 'Code' }).fill('*100#');
    await console_.getByLabel('SIM').selectOption({ label: 'SIM 1 (Test Mobile)' });
    await console_.getByRole('button', { name: 'Dial' }).click();
    await console_.getByText('Completed.').waitFor();
    expect(await console_.getByRole('list', { name: 'What was said' }).textContent()).to.include('Balance: 12.34 EUR');
    const [sent] = (await gw.tenant.api.get(`/devices/${phone.id}/ussd`)).body.data;
    expect(sent).to.include({ code: '*100#', sim: 0, status: 'completed' });

    await console_.getByRole('textbox', { name: 'Code' }).fill('*111#');
    await console_.getByRole('button', { name: 'Dial' }).click();
    await console_.getByText('The network asks for a reply.').waitFor();
    expect(await console_.getByRole('list', { name: 'What was said' }).textContent()).to.include('2. Data bundles');
    await checkA11y(page, 'USSD console waiting for a reply');
    await console_.getByRole('textbox', { name: 'Reply' }).fill('2');
    await console_.getByRole('button', { name: 'Send reply' }).click();
    // The bundle menu's own line: "Data bundles" is already on screen as the main menu's option 2,
    // and a reply sent before the second menu has arrived is refused (the session is not waiting).
    await console_.getByText('1 GB - 5.00 EUR').waitFor();
    await console_.getByRole('textbox', { name: 'Reply' }).fill('1');
    await console_.getByRole('button', { name: 'Send reply' }).click();
    await console_.getByText('Completed.').waitFor();
    expect(await console_.getByRole('list', { name: 'What was said' }).textContent()).to.include('You bought 1 GB');
    await screenshot(page, 'device-ussd-console');
    // Four exchanges with the phone and an accessibility check: about 6 s on an idle machine, and
    // past the default 15 s once in a CI run with both suites and Chromium sharing two cores.
  }, 30_000);

  browser.scenario('a code with letters is refused with the API\'s words beside the field, and nothing is dialled', async (page) => {
    const phone = await quickPhone(gw, 'USSD phone 2');
    await owner.enter(page);
    await openPanel(page, `/devices/${phone.id}`);
    const console_ = page.getByRole('region', { name: 'USSD', exact: true });
    await console_.getByRole('textbox', { name: 'Code' }).fill('*balance#');
    await console_.getByRole('button', { name: 'Dial' }).click();
    await console_.getByText(/digits, \* and # only/).first().waitFor();
    expect(await console_.getByRole('textbox', { name: 'Code' }).getAttribute('aria-invalid')).to.equal('true');
    expect((await gw.tenant.api.get(`/devices/${phone.id}/ussd`)).body.data).to.deep.equal([]);
    await checkA11y(page, 'USSD console with a refused code');
  });

  browser.scenario('a viewer sees the device but no USSD console', async (page) => {
    const phone = await quickPhone(gw, 'USSD phone 3');
    await viewer.enter(page);
    await openPanel(page, `/devices/${phone.id}`);
    await page.getByRole('heading', { name: 'Settings' }).first().waitFor();
    expect(await page.getByRole('region', { name: 'USSD', exact: true }).count()).to.equal(0);
  });
});
