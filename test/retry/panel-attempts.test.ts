// The panel's SMS page lists the send attempts: a simulated dual-SIM phone whose first SIM has no
// network fails the SMS there, the gateway retries it on the other SIM (no backoff here), and the
// page shows both attempts, the failure's code, and the final status.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { checkA11y, openPanel, screenshot, useBrowser } from '../panel/support/browser.ts';
import { useLoggedIn } from '../panel/support/logged-in.ts';
import { smsReaches } from '../panel/support/seed.ts';

describe('panel: an SMS\'s send attempts', () => {
  const gw = useGateway({ tenant: 'once', config: { sendRetryBackoffMs: 0 } });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('an SMS retried on the other SIM shows both attempts on its page', async (page) => {
    const phone = await gw.connectDevice({
      simCards: [
        { index: 0, name_operator: 'No network' },
        { index: 1, name_operator: 'Working' },
      ],
      failSims: new Map([[0, 'no_service']]),
      delays: { processing: 0, sent: 0, delivered: 0 },
    });
    await gw.tenant.api.patch(`/devices/${phone.id}/settings`, { selected_sim: 0 });
    const created = await gw.tenant.api.post('/sms', { phone: '+12025550199', message: 'Second time lucky', device_id: phone.id });
    expect(created.status).to.equal(201);
    const id = created.body.id as string;
    await smsReaches(gw, id, 'delivered');

    await owner.enter(page);
    await openPanel(page, `/sms/${id}`);
    const attempts = page.getByTestId('sms-attempts').locator('li');
    await attempts.nth(1).waitFor();
    expect(await attempts.count()).to.equal(2);
    expect(await attempts.nth(0).textContent()).to.match(/Attempt 1: Failed.*SIM 1.*no_service.*\(tried again\)/s);
    expect(await attempts.nth(1).textContent()).to.match(/Attempt 2: Sent.*SIM 2/s);
    // Each says its number once: no list marker ("1.") beside "Attempt 1".
    // The server's tsconfig has no DOM types, hence globalThis.
    const markers = await attempts.evaluateAll((items) =>
      items.map((item) => (globalThis as unknown as { getComputedStyle(element: unknown): { listStyleType: string } }).getComputedStyle(item).listStyleType),
    );
    expect(markers).to.deep.equal(['none', 'none']);
    await checkA11y(page, 'SMS attempts');
    await screenshot(page, 'sms-attempts');
  });
});
