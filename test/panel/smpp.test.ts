// SMPP credentials in the panel: the password shown once binds an ESME, the phones ticked are the
// ones the credential names, and Revoke unbinds the session and refuses the next bind.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { bindEsme, SMPP_ON, TestEsme } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';
import { registerDevice } from '../support/tenant.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: SMPP credentials', () => {
  const gw = useGateway({ tenant: 'once', config: { smpp: SMPP_ON } });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('a credential made in the panel binds with the password shown once, names the phone ticked, and Revoke unbinds it', async (page) => {
    const device = await registerDevice(gw.gateway, gw.tenant, 'Shop phone');
    await owner.enter(page);
    await openPanel(page, '/smpp');
    await page.getByLabel('system_id').fill('crm-panel');
    await page.getByLabel('Window').fill('4');
    await page.getByLabel('Shop phone').check();
    await page.getByRole('button', { name: 'Create credential' }).click();
    const password = (await page.getByRole('status').filter({ hasText: 'SMPP password' }).getByTestId('shown-once').textContent())!.trim();
    expect(password).to.have.length(8);
    const row = page.getByRole('row').filter({ hasText: 'crm-panel' });
    await row.getByText('Shop phone').waitFor();

    const listed = (await gw.tenant.api.get('/smpp/credentials')).body.data as { system_id: string; device_ids: string[]; window_size: number }[];
    expect(listed.find((credential) => credential.system_id === 'crm-panel')).to.include({ window_size: 4 }).and.have.deep.property('device_ids', [device.device.id]);

    const esme = await bindEsme(gw.gateway, { system_id: 'crm-panel', password } as never);
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Revoke crm-panel' }).click();
    await page.locator('tr[data-revoked="true"]').filter({ hasText: 'crm-panel' }).waitFor();
    await esme.closed;

    const again = await TestEsme.connect(gw.gateway.smppPort);
    const refused = await again.call('bind_transceiver', { system_id: 'crm-panel', password });
    expect(refused.command_status).to.equal(STATUS.ESME_RBINDFAIL);
    again.session.close();
  });

  browser.scenario('a window of 0 is answered beside its field, and nothing is created', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/smpp');
    await page.getByLabel('system_id').fill('crm-bad');
    await page.getByLabel('Window').fill('0');
    await page.getByRole('button', { name: 'Create credential' }).click();
    await page.locator('.field-error').first().waitFor();
    expect(((await gw.tenant.api.get('/smpp/credentials')).body.data as { system_id: string }[]).map((credential) => credential.system_id)).to.not.include('crm-bad');
  });
});
