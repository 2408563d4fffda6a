// Upstreams and routes in the panel, against a real gateway: a Twilio-compatible upstream (the
// gateway's own Twilio API, with a credential of the tenant) added through the form and listed
// with its link, the routes editor saving "phones for 60 s, then that upstream", Delete refused
// with a clear message while the routes name it and done once they are cleared; an SMPP upstream's
// refused values shown beside their fields, then changed and disabled; the gateway's refusal of a
// rule shown beside that rule's field; a viewer reading it all without a way to change it; and
// the page passing axe and fitting a phone.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { eventually } from '../support/eventually.ts';
import { useGateway } from '../support/use-gateway.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { createCredential } from '../twilio/support.ts';
import { checkA11y, openPanel, PHONE, screenshot, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

interface ListedUpstream {
  id: string;
  name: string;
  kind: string;
  enabled: boolean;
  window_size?: number;
  link: { state: string };
}

describe('panel: upstreams and routes', () => {
  // The outbound guard lets the gateway reach a provider on 127.0.0.1: here, its own Twilio API.
  const gw = useGateway({ tenant: 'once', config: { webhooks: webhookConfig({ allowedHosts: ['127.0.0.1'] }) } });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');
  const viewer = useLoggedIn(gw, browser, 'viewer');

  const upstreams = async () => (await gw.tenant.api.get('/upstreams')).body.data as ListedUpstream[];
  const routes = async () => (await gw.tenant.api.get('/routes')).body.routes as object[];
  const rule = (page: Page, number: number) => page.getByRole('group', { name: `Rule ${number}`, exact: true });

  async function setRoutes(body: object[]): Promise<void> {
    const reply = await gw.tenant.api.request('PUT', '/routes', { routes: body });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  }

  async function removeAll(): Promise<void> {
    await setRoutes([]);
    for (const upstream of await upstreams()) expect((await gw.tenant.api.delete(`/upstreams/${upstream.id}`)).status).to.equal(204);
  }
  afterEach(removeAll);

  browser.scenario(
    'a Twilio-compatible upstream added through the form is listed with its link; the routes editor saves phones for 60 s then it; Delete is refused while the routes name it and works once they are cleared',
    async (page) => {
      const credential = await createCredential(gw.tenant, { friendly_name: 'Provider side' });
      await owner.enter(page);
      await openPanel(page, '/upstreams', 'Upstreams');
      await page.getByText('No upstreams yet').waitFor();

      await page.getByLabel('Kind').selectOption('twilio');
      await page.getByLabel('Name', { exact: true }).fill('Second gateway');
      await page.getByLabel('API root URL').fill(gw.baseUrl);
      await page.getByLabel('Account SID').fill(credential.account_sid);
      const token = page.getByLabel('Auth token');
      expect(await token.getAttribute('type')).to.equal('password');
      await token.fill(credential.auth_token);
      await page.getByLabel('From', { exact: true }).fill('+15005550006');
      await page.getByLabel('Price per segment').fill('0.02');
      await page.getByLabel('Monthly budget').fill('10');
      await page.getByRole('button', { name: 'Add upstream' }).click();
      await page.getByRole('status').filter({ hasText: 'Second gateway is added.' }).waitFor();

      const row = page.getByRole('row').filter({ hasText: 'Second gateway' });
      const [listed] = await upstreams();
      expect(listed).to.include({ name: 'Second gateway', kind: 'twilio', enabled: true });
      expect(listed).to.deep.include({ base_url: gw.baseUrl, account_sid: credential.account_sid, from: '+15005550006', price_per_segment: 0.02, monthly_budget: 10 });
      // Listed with this node's link to it, as the API tells it (a Twilio link waits for its first SMS).
      expect(await row.locator('[data-link-state]').getAttribute('data-link-state')).to.equal(listed!.link.state);
      expect(await row.textContent()).to.contain(listed!.link.state).and.contain('Twilio-compatible').and.contain('0 of 10 spent').and.contain('0.02 a segment');
      // The secret is never shown back: not in the page, and the emptied form's input holds nothing.
      expect(await page.locator('main').textContent()).to.not.contain(credential.auth_token);
      expect(await page.getByLabel('Kind').inputValue()).to.equal('twilio');
      expect(await page.getByLabel('Auth token').inputValue()).to.equal('');

      await page.getByRole('button', { name: 'Add a rule' }).click();
      await rule(page, 1).getByLabel('Seconds the phones have').fill('60');
      await page.getByRole('button', { name: 'Add a rule' }).click();
      await rule(page, 2).getByLabel('Target').selectOption({ label: 'Second gateway' });
      expect(await rule(page, 2).getByLabel('Seconds the phones have').count(), 'phones-only settings are not offered for an upstream').to.equal(0);
      await page.getByRole('button', { name: 'Save routes' }).click();
      await page.getByRole('status').filter({ hasText: 'Routes saved.' }).waitFor();
      expect(await routes()).to.deep.equal([{ target: 'phones', after_seconds: 60 }, { target: listed!.id }]);

      page.once('dialog', (dialog) => void dialog.accept());
      await row.getByRole('button', { name: 'Delete Second gateway' }).click();
      await page.getByRole('alert').filter({ hasText: 'Second gateway cannot be deleted while the routes name it' }).waitFor();
      expect(await upstreams()).to.have.length(1);

      await page.getByRole('button', { name: 'Remove rule 2' }).click();
      await page.getByRole('button', { name: 'Remove rule 1' }).click();
      await page.getByRole('button', { name: 'Save routes' }).click();
      await page.getByRole('status').filter({ hasText: 'Routes saved.' }).waitFor();
      await page.getByText('No rules: every SMS goes to the phones.').waitFor();
      expect(await routes()).to.deep.equal([]);

      page.once('dialog', (dialog) => void dialog.accept());
      await row.getByRole('button', { name: 'Delete Second gateway' }).click();
      await page.getByRole('status').filter({ hasText: 'Second gateway is deleted.' }).waitFor();
      await row.waitFor({ state: 'detached' });
      expect(await upstreams()).to.deep.equal([]);
      expect(await page.getByRole('alert').count()).to.equal(0);
    },
    30_000,
  );

  browser.scenario('an SMPP upstream: refused values are shown beside their fields; it is changed (its password kept) and disabled; a refused rule is shown beside its field', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/upstreams', 'Upstreams');
    expect(await page.getByLabel('Kind').inputValue()).to.equal('smpp');
    expect(await page.getByLabel('API root URL').count(), 'no Twilio fields for an SMSC').to.equal(0);
    await page.getByLabel('Name', { exact: true }).fill('Carrier');
    await page.getByLabel('SMSC host').fill('127.0.0.1');
    await page.getByLabel('SMSC port').fill('70000');
    await page.getByLabel('system_id', { exact: true }).fill('acme');
    expect(await page.getByLabel('SMPP password').getAttribute('type')).to.equal('password');
    await page.getByLabel('SMPP password').fill('s3cret');
    await page.getByLabel('Prices by prefix').fill('+44 0.035\nUK 0.01');
    await page.getByRole('button', { name: 'Add upstream' }).click();
    const portField = page.locator('.field-invalid').filter({ has: page.getByLabel('SMSC port') });
    await portField.locator('.field-error').waitFor();
    expect(await page.locator('.field-invalid').filter({ has: page.getByLabel('Prices by prefix') }).locator('.field-error').textContent()).to.match(/^Line 2: /);
    await page.getByRole('alert').filter({ hasText: 'Check the fields marked below' }).waitFor();
    expect(await upstreams()).to.deep.equal([]);

    await page.getByLabel('SMSC port').fill('2775');
    await page.getByLabel('Prices by prefix').fill('+44 0.035');
    await page.getByRole('button', { name: 'Add upstream' }).click();
    await page.getByRole('status').filter({ hasText: 'Carrier is added.' }).waitFor();
    const [carrier] = await upstreams();
    expect(carrier).to.deep.include({ kind: 'smpp', host: '127.0.0.1', port: 2775, system_id: 'acme', prefix_prices: [{ prefix: '+44', price: 0.035 }] });

    const row = page.getByRole('row').filter({ hasText: 'Carrier' });
    await row.getByRole('button', { name: 'Change Carrier' }).click();
    const edit = page.getByRole('form', { name: 'Change Carrier' });
    expect(await edit.getByLabel('SMPP password').inputValue(), 'the password is never filled in').to.equal('');
    expect(await edit.getByLabel('SMSC port').inputValue()).to.equal('2775');
    await edit.getByLabel('Window').fill('5');
    // Only what changed is sent: the empty password keeps the one the gateway holds.
    const sent = page.waitForRequest((request) => request.method() === 'PATCH' && request.url().endsWith(`/upstreams/${carrier!.id}`));
    await edit.getByRole('button', { name: 'Save upstream' }).click();
    expect((await sent).postDataJSON()).to.deep.equal({ window_size: 5 });
    await page.getByRole('status').filter({ hasText: 'Carrier is saved.' }).waitFor();
    await page.getByRole('form', { name: 'New upstream' }).waitFor();
    expect((await upstreams())[0]).to.include({ window_size: 5 });

    await row.getByRole('button', { name: 'Disable Carrier' }).click();
    await page.locator('tr[data-enabled="false"]').filter({ hasText: 'Carrier' }).waitFor();
    expect((await upstreams())[0]).to.include({ enabled: false });
    await eventually('the link of a disabled upstream is closed', async () => ((await upstreams())[0]!.link.state === 'closed' ? true : undefined));
    await page.getByRole('button', { name: 'Refresh' }).click();
    await row.locator('[data-link-state="closed"]').waitFor();

    // The gateway refuses a phones rule with no time at all and a prefix that is not E.164: each beside its field.
    await page.getByRole('button', { name: 'Add a rule' }).click();
    await rule(page, 1).getByLabel('Seconds the phones have').fill('0');
    await page.getByRole('button', { name: 'Add a rule' }).click();
    await rule(page, 2).getByLabel('Target').selectOption({ label: 'Carrier (disabled)' });
    await rule(page, 2).getByLabel('Prefixes').fill('UK');
    await page.getByRole('button', { name: 'Save routes' }).click();
    await page.getByRole('alert').filter({ hasText: 'Check rules 1, 2 below.' }).waitFor();
    expect(await rule(page, 1).locator('.field-invalid .field-error').textContent()).to.match(/^Seconds the phones have /);
    expect(await rule(page, 2).locator('.field-invalid .field-error').textContent()).to.match(/^Prefix 1 is not in the expected form/);
    expect(await routes()).to.deep.equal([]);

    // Moved up, the carrier comes first; fixed, both are saved in that order.
    await page.getByRole('button', { name: 'Move rule 2 up' }).click();
    await rule(page, 1).getByLabel('Prefixes').fill('+44');
    await rule(page, 1).getByLabel('otp', { exact: true }).check();
    await rule(page, 2).getByLabel('Seconds the phones have').fill('30');
    await rule(page, 2).getByLabel('Move on at once when no phone is online').uncheck();
    await page.getByRole('button', { name: 'Save routes' }).click();
    await page.getByRole('status').filter({ hasText: 'Routes saved.' }).waitFor();
    expect(await routes()).to.deep.equal([{ target: carrier!.id, prefixes: ['+44'], categories: ['otp'] }, { target: 'phones', after_seconds: 30, skip_when_offline: false }]);
  });

  browser.scenario('a viewer finds Upstreams in the navigation and reads upstreams and routes without a way to change them', async (page) => {
    const created = await gw.tenant.api.post('/upstreams', { name: 'Read-only carrier', kind: 'smpp', host: '127.0.0.1', port: 9, system_id: 'acme', password: 's3cret', enabled: false });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await setRoutes([{ target: 'phones', after_seconds: 45 }, { target: created.body.id, categories: ['otp', 'marketing'] }]);
    await viewer.enter(page);
    await openPanel(page, '/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Upstreams', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Upstreams' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'Read-only carrier' }).waitFor();
    await rule(page, 2).waitFor();
    expect(await rule(page, 1).getByLabel('Seconds the phones have').inputValue()).to.equal('45');
    expect(await rule(page, 1).getByLabel('Seconds the phones have').isDisabled()).to.equal(true);
    expect(await rule(page, 2).getByLabel('Target').inputValue()).to.equal(created.body.id);
    expect(await rule(page, 2).getByLabel('marketing', { exact: true }).isChecked()).to.equal(true);
    expect(await rule(page, 2).getByLabel('transactional', { exact: true }).isChecked()).to.equal(false);
    for (const name of ['Add upstream', 'Save routes', 'Add a rule', 'Delete Read-only carrier', 'Change Read-only carrier', 'Remove rule 1']) {
      expect(await page.getByRole('button', { name, exact: true }).count(), name).to.equal(0);
    }
    expect(await page.getByLabel('Auth token').count()).to.equal(0);
  });

  for (const [width, viewport] of [['1280 px', undefined], ['390 px', PHONE]] as const) {
    browser.scenario(`with an upstream and routes, the page passes axe at ${width}${viewport ? ' and fits the screen' : ''}`, async (page) => {
      const created = await gw.tenant.api.post('/upstreams', {
        name: 'Carrier with a rather long name',
        kind: 'twilio',
        base_url: gw.baseUrl,
        account_sid: `AC${'1'.repeat(32)}`,
        auth_token: 'a'.repeat(32),
        from: '+15005550006',
        price_per_segment: 0.012,
        prefix_prices: [{ prefix: '+44', price: 0.035 }],
        monthly_budget: 500,
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      await setRoutes([{ target: 'phones', after_seconds: 60 }, { target: created.body.id, prefixes: ['+44', '+33'] }]);
      if (viewport) await page.setViewportSize({ ...viewport });
      await owner.enter(page);
      await openPanel(page, '/upstreams', 'Upstreams');
      await rule(page, 2).waitFor();
      await screenshot(page, viewport ? 'upstreams-390' : 'upstreams');
      await checkA11y(page, `upstreams at ${width}`);
      if (!viewport) return;
      const widths = await page.evaluate(() => {
        const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number }; querySelectorAll(selector: string): ArrayLike<{ scrollWidth: number; clientWidth: number }> } }).document;
        const wraps = Array.from(doc.querySelectorAll('.table-wrap')).map((wrap) => wrap.scrollWidth - wrap.clientWidth);
        return { page: doc.documentElement.scrollWidth, overflow: Math.max(0, ...wraps) };
      });
      expect(widths, 'nothing to scroll sideways').to.deep.equal({ page: PHONE.width, overflow: 0 });
      const remove = await page.getByRole('button', { name: 'Delete Carrier with a rather long name' }).boundingBox();
      expect(remove!.x + remove!.width, "the Delete button's right edge").to.be.at.most(PHONE.width);
    });
  }
});
