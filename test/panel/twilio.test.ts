// Twilio credentials in the panel: the auth token shown once works against the Twilio-compatible
// API, "New token" replaces it (the old one is refused at once), and Delete ends the credential.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: Twilio credentials', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  async function listWith(sid: string, token: string): Promise<number> {
    const response = await fetch(`${gw.baseUrl}/2010-04-01/Accounts/${sid}/Messages.json`, {
      headers: { authorization: `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}` },
    });
    return response.status;
  }

  browser.scenario('a credential made in the panel works with the token shown once; a new token replaces it; Delete ends it', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/twilio');
    await page.getByLabel('Name').fill('Legacy app');
    await page.getByRole('button', { name: 'Create credential' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'Auth token' });
    const token = (await notice.getByTestId('shown-once').textContent())!.trim();
    const row = page.getByRole('row').filter({ hasText: 'Legacy app' });
    await row.waitFor();
    const sid = /AC[0-9a-f]{32}/.exec((await row.textContent())!)![0];
    expect(token).to.match(/^[0-9a-f]{32}$/);
    expect(await listWith(sid, token)).to.equal(200);

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: `New auth token for ${sid}` }).click();
    await page.getByTestId('shown-once').filter({ hasNotText: token }).waitFor();
    const fresh = (await page.getByTestId('shown-once').textContent())!.trim();
    expect(await listWith(sid, token)).to.equal(401);
    expect(await listWith(sid, fresh)).to.equal(200);

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: `Delete ${sid}` }).click();
    await row.waitFor({ state: 'detached' });
    expect(await listWith(sid, fresh)).to.equal(401);
  });
});
