// API keys in the panel: a key made there works at once with exactly the permissions ticked,
// and revoking it there shuts it out at once.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { ApiClient } from '../support/tenant.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: API keys', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('a key created in the panel answers 200 with its permission, and 401 once revoked in the panel', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/keys');
    await page.getByLabel('Key name').fill('Billing system');
    await page.getByLabel('sms:read', { exact: true }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'API key' });
    const key = (await notice.getByTestId('shown-once').textContent())!.trim();

    const client = new ApiClient(`${gw.baseUrl}/api/ext/v1`, key);
    expect((await client.get('/sms')).status).to.equal(200);
    // Only what was ticked: no devices:read.
    expect((await client.get('/devices')).status).to.equal(403);

    const row = page.getByRole('row').filter({ hasText: 'Billing system' });
    await row.waitFor();
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await row.getByRole('button', { name: /^Revoke key / }).click();
    await row.getByRole('button', { name: /^Revoke key / }).waitFor({ state: 'detached' });
    expect(asked).to.not.equal('');
    expect((await client.get('/sms')).status).to.equal(401);
  });

  browser.scenario('dismissing the confirmation leaves the key working', async (page) => {
    const { key } = await gw.gateway.services.apiKeys.create(gw.tenant.accountId, ['sms:read'], 'Kept key');
    await owner.enter(page);
    await openPanel(page, '/keys');
    const row = page.getByRole('row').filter({ hasText: 'Kept key' });
    page.once('dialog', (dialog) => void dialog.dismiss());
    await row.getByRole('button', { name: /^Revoke key / }).click();
    expect((await new ApiClient(`${gw.baseUrl}/api/ext/v1`, key).get('/sms')).status).to.equal(200);
    expect(await row.getByRole('button', { name: /^Revoke key / }).count()).to.equal(1);
  });
});
