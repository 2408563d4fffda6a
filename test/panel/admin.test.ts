// What an owner administers in the panel: webhooks (the secret shown once signs deliveries, the
// callback id shown works in the legacy API; rotate, disable, retry, delete), API keys (work at
// once with what was ticked, 401 once revoked), users (one-time passwords that log in, roles,
// disabling, removal) and, for the instance administrator, accounts. One gateway and one
// logged-in owner who is also the administrator, for the file. And the account's retention setting.
import { expect } from 'chai';
import { LEGACY_SMS_KEYS, OBJECT_ID } from '../support/legacy.ts';
import { tryLogin } from '../support/session-client.ts';
import { ApiClient } from '../support/tenant.ts';
import { useGateway } from '../support/use-gateway.ts';
import { createWebhook, deliveryLog, readWebhook, verifies, webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { openPanel, settled, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { panelEmail, panelUser } from './support/people.ts';
import { quickPhone } from './support/seed.ts';

describe('panel: administration', () => {
  // Deliveries are given up 300 ms after their event, so a failed one exists within a test.
  const gw = useGateway({ tenant: 'once', config: { webhooks: webhookConfig({ retryForMs: 300 }) } });
  const browser = useBrowser(() => gw.baseUrl);
  const admin = useLoggedIn(gw, browser, 'owner', { isAdmin: true });

  describe('webhooks', () => {
    browser.scenario('a webhook created in the panel: its callback id works in legacy POST /sms/send, and its shown secret signs the deliveries', async (page) => {
      const receiver = await gw.receiver();
      await quickPhone(gw);
      await admin.enter(page);
      await openPanel(page, '/webhooks');
      await page.getByLabel('URL').fill(receiver.url);
      await page.getByLabel('sms.status_changed').check();
      await page.getByRole('button', { name: 'Create webhook' }).click();

      const secretNotice = page.getByRole('status').filter({ hasText: 'Webhook secret' });
      const secret = (await secretNotice.getByTestId('shown-once').textContent())!.trim();
      const callbackId = (await page.getByTestId('callback-id').first().textContent())!.trim();
      await page.getByRole('button', { name: 'Copy callback id' }).first().waitFor();
      const webhook = await readWebhook(gw.tenant, callbackId);
      expect(webhook).to.include({ url: receiver.url, enabled: true });
      expect(webhook.events).to.deep.equal(['sms.status_changed']);
      expect(await page.locator(`main a[href="#/webhooks/${callbackId}"]`).count(), 'the list links the new webhook').to.be.greaterThan(0);

      const sent = await gw.tenant.root.post('/sms/send', { phone_number: '+12025550141', message: 'Legacy hello', callback_id: callbackId });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
      expect(sent.body.id).to.match(OBJECT_ID);
      const stored = await gw.tenant.root.post('/sms/get', { id: sent.body.id });
      expect(Object.keys(stored.body)).to.have.members([...LEGACY_SMS_KEYS]);
      expect(stored.body.callback_id).to.equal(callbackId);

      const [delivery] = await receiver.waitFor(1);
      expect(verifies(secret, delivery!), 'the delivery is signed with the secret the panel showed').to.equal(true);
    });

    browser.scenario('the send form\'s "Webhook" picker ties an SMS to one of the account\'s webhooks, as the legacy callback_id does', async (page) => {
      const receiver = await gw.receiver();
      const { webhook } = await createWebhook(gw.tenant, receiver.url, ['sms.status_changed'], 'Order system');
      await admin.enter(page);
      await openPanel(page, '/send');
      await page.getByLabel('Message').fill('Tied to one webhook');
      await page.getByLabel('Phone numbers').fill('+12025550144');
      const picker = page.getByLabel('Webhook', { exact: true });
      // A choice among the account's webhooks, by what they are, not an id to paste.
      expect(await picker.locator('option').first().textContent()).to.equal('Every webhook with SMS events');
      await picker.selectOption({ label: `Order system — ${receiver.url}` });
      await page.getByRole('button', { name: 'Send SMS' }).click();
      await page.getByRole('status').getByRole('link', { name: 'Follow its status' }).click();
      await page.waitForURL(/#\/sms\/[0-9a-f-]{36}$/);
      const id = page.url().split('/').pop()!;
      // The legacy family shows an SMS's callback id; it reads Extended ids too.
      const stored = await gw.tenant.root.post('/sms/get', { id });
      expect(stored.status, JSON.stringify(stored.body)).to.equal(200);
      expect(stored.body.callback_id).to.equal(webhook.id);
    });

    browser.scenario('the detail page rotates the secret, disables and enables the webhook, and deletes it after asking', async (page) => {
      const receiver = await gw.receiver();
      const { webhook } = await createWebhook(gw.tenant, receiver.url, ['sms.status_changed']);
      await admin.enter(page);
      await openPanel(page, `/webhooks/${webhook.id}`);
      expect((await page.getByTestId('callback-id').first().textContent())!.trim()).to.equal(webhook.id);
      await page.getByRole('button', { name: 'Copy callback id' }).first().waitFor();

      await page.getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = (await page.getByTestId('shown-once').textContent())!.trim();
      expect(rotated).to.not.equal('');

      await page.getByRole('button', { name: 'Disable', exact: true }).click();
      await page.getByRole('button', { name: 'Enable', exact: true }).waitFor();
      expect((await readWebhook(gw.tenant, webhook.id)).enabled).to.equal(false);
      await page.getByRole('button', { name: 'Enable', exact: true }).click();
      await page.getByRole('button', { name: 'Disable', exact: true }).waitFor();
      expect((await readWebhook(gw.tenant, webhook.id)).enabled).to.equal(true);

      // The rotated secret is the one new deliveries are signed with.
      await quickPhone(gw, 'Rotation phone');
      expect((await gw.tenant.api.post('/sms', { phone: '+12025550142', message: 'After rotation' })).status).to.equal(201);
      const [delivery] = await receiver.waitFor(1);
      expect(verifies(rotated, delivery!)).to.equal(true);

      let asked = '';
      page.once('dialog', (dialog) => {
        asked = dialog.message();
        void dialog.accept();
      });
      await page.getByRole('button', { name: 'Delete webhook' }).click();
      await page.waitForURL(/#\/webhooks$/);
      expect(asked).to.not.equal('');
      expect((await gw.tenant.api.get(`/webhooks/${webhook.id}`)).status).to.equal(404);
    });

    browser.scenario('"Send test event" sends a signed webhook.test; the log shows its payload and the receiver\'s answer', async (page) => {
      const receiver = await gw.receiver();
      receiver.respond = () => 202;
      receiver.answerBody = () => 'queued by the test receiver';
      const { webhook, secret } = await createWebhook(gw.tenant, receiver.url, ['device.online']);
      await admin.enter(page);
      await openPanel(page, `/webhooks/${webhook.id}`);
      await page.getByRole('button', { name: 'Send test event' }).click();
      const sent = page.getByRole('status').filter({ hasText: 'Test event sent' });
      await sent.waitFor();
      const [request] = await receiver.waitFor(1);
      expect(verifies(secret, request!)).to.equal(true);
      expect(request!.json.type).to.equal('webhook.test');
      // The message leads to the delivery's row, marked, rather than quoting its id.
      const [tested] = await deliveryLog(gw.tenant, webhook.id);
      expect(await sent.textContent()).to.not.contain(tested!.id);
      const marked = page.locator('tr.row-marked');
      await marked.filter({ hasText: 'webhook.test' }).waitFor();
      expect(await marked.getAttribute('id')).to.equal(`delivery-${tested!.id}`);
      await sent.getByRole('button', { name: 'Show its delivery' }).click();
      const box = (await marked.boundingBox())!;
      expect(box.y >= 0 && box.y + box.height <= page.viewportSize()!.height, 'the row is in view').to.equal(true);

      // The log on the page was read when the test was queued; the outcome is recorded just after
      // the answer: once the API has it, the page read afresh shows it.
      await eventually('the test delivered', async () => ((await deliveryLog(gw.tenant, webhook.id))[0]?.status === 'delivered' ? true : undefined));
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
      await settled(page);
      const row = page.locator('tr[data-delivery-status=delivered]').filter({ hasText: 'webhook.test' });
      await row.getByText('Payload and answer').click();
      expect(JSON.parse((await row.getByTestId('delivery-payload').textContent())!)).to.deep.equal(request!.json);
      expect(await row.getByTestId('delivery-answer-status').textContent()).to.equal('202');
      expect(await row.getByTestId('delivery-answer-body').textContent()).to.equal('queued by the test receiver');
    });

    browser.scenario('a delivery that was given up is retried from the delivery log and reaches the receiver', async (page) => {
      const receiver = await gw.receiver();
      receiver.respond = () => 500;
      const { webhook } = await createWebhook(gw.tenant, receiver.url, ['sms.status_changed']);
      await quickPhone(gw, 'Retry phone');
      expect((await gw.tenant.api.post('/sms', { phone: '+12025550143', message: 'To be retried' })).status).to.equal(201);
      const failed = await eventually('a delivery given up', async () => (await deliveryLog(gw.tenant, webhook.id)).find((delivery) => delivery.status === 'failed'));
      expect(failed.last_status_code).to.equal(500);

      await admin.enter(page);
      await openPanel(page, `/webhooks/${webhook.id}`);
      expect(await page.getByRole('columnheader').count()).to.be.greaterThan(0);
      receiver.respond = () => 204;
      const answered = receiver.waitFor(1, (request) => request.status === 204);
      await page.getByRole('button', { name: 'Retry' }).first().click();
      await answered;
      await eventually('a retried delivery delivered', async () => ((await deliveryLog(gw.tenant, webhook.id)).some((delivery) => delivery.status === 'delivered') ? true : undefined));
    });
  });

  describe('API keys', () => {
    browser.scenario('a key created in the panel answers 200 with its permission, and 401 once revoked in the panel', async (page) => {
      await admin.enter(page);
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
      // Revoked keys stay listed, marked as such.
      expect(await row.textContent()).to.match(/revoked/i);
      expect((await client.get('/sms')).status).to.equal(401);
    });

    browser.scenario('dismissing the confirmation leaves the key working', async (page) => {
      const { key } = await gw.gateway.services.apiKeys.create(gw.tenant.accountId, ['sms:read'], 'Kept key');
      await admin.enter(page);
      await openPanel(page, '/keys');
      const row = page.getByRole('row').filter({ hasText: 'Kept key' });
      page.once('dialog', (dialog) => void dialog.dismiss());
      await row.getByRole('button', { name: /^Revoke key / }).click();
      expect((await new ApiClient(`${gw.baseUrl}/api/ext/v1`, key).get('/sms')).status).to.equal(200);
      expect(await row.getByRole('button', { name: /^Revoke key / }).count()).to.equal(1);
    });
  });

  describe('users and accounts', () => {
    async function userByEmail(email: string) {
      return (await gw.gateway.services.users.findByEmail(email))!;
    }

    browser.scenario('a user added in the panel logs in with the one-time password shown once, and must change it', async (page) => {
      const email = panelEmail('added');
      await admin.enter(page);
      await openPanel(page, '/users');
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByLabel('Role', { exact: true }).selectOption('viewer');
      await page.getByRole('button', { name: 'Add user' }).click();
      const notice = page.getByRole('status').filter({ hasText: 'One-time password' });
      const password = (await notice.getByTestId('shown-once').textContent())!.trim();

      const login = await tryLogin(gw.gateway, email, password);
      expect(login.status, JSON.stringify(login.body)).to.equal(200);
      expect(login.body.user).to.include({ email, role: 'viewer', must_change_password: true });
      await page.getByRole('row').filter({ hasText: email }).waitFor();
    });

    browser.scenario("a user's role, disabling and removal in the table are what the API then holds", async (page) => {
      const user = await panelUser(gw.gateway, gw.tenant.accountId, 'viewer');
      await admin.enter(page);
      await openPanel(page, '/users');
      const row = page.getByRole('row').filter({ hasText: user.email });

      await row.getByRole('combobox').selectOption('owner');
      await eventually('the role changed', async () => ((await userByEmail(user.email)).role === 'owner' ? true : undefined));

      await row.getByRole('button', { name: 'Disable', exact: true }).click();
      await row.getByRole('button', { name: 'Enable', exact: true }).waitFor();
      expect((await userByEmail(user.email)).disabled_at).to.not.equal(null);
      expect((await tryLogin(gw.gateway, user.email, user.password)).status).to.equal(401);
      await row.getByRole('button', { name: 'Enable', exact: true }).click();
      await row.getByRole('button', { name: 'Disable', exact: true }).waitFor();
      expect((await userByEmail(user.email)).disabled_at).to.equal(null);

      page.once('dialog', (dialog) => void dialog.accept());
      await row.getByRole('button', { name: 'Delete', exact: true }).click();
      await row.waitFor({ state: 'detached' });
      expect(await gw.gateway.services.users.findByEmail(user.email)).to.equal(undefined);
    });

    browser.scenario('"Reset password" shows a new one-time password that logs the user in, and the old password stops working', async (page) => {
      const user = await panelUser(gw.gateway, gw.tenant.accountId, 'viewer');
      await admin.enter(page);
      await openPanel(page, '/users');
      const row = page.getByRole('row').filter({ hasText: user.email });
      page.once('dialog', (dialog) => void dialog.accept());
      await row.getByRole('button', { name: 'Reset password' }).click();
      const password = (await page.getByRole('status').filter({ hasText: 'One-time password' }).getByTestId('shown-once').textContent())!.trim();
      expect((await tryLogin(gw.gateway, user.email, password)).status).to.equal(200);
      expect((await tryLogin(gw.gateway, user.email, user.password)).status).to.equal(401);
    });

    browser.scenario('the administrator opens an account with its first owner, whose one-time password works, and disables it', async (page) => {
      const name = `panel-${Date.now().toString(36)}`;
      const ownerEmail = panelEmail('first-owner');
      await admin.enter(page);
      await openPanel(page, '/accounts');
      await page.getByLabel('Account name').fill(name);
      await page.getByLabel('Owner email').fill(ownerEmail);
      await page.getByRole('button', { name: 'Create account' }).click();
      const password = (await page.getByTestId('shown-once').textContent())!.trim();
      const login = await tryLogin(gw.gateway, ownerEmail, password);
      expect(login.status, JSON.stringify(login.body)).to.equal(200);
      expect(login.body.user).to.include({ role: 'owner', must_change_password: true });

      const row = page.getByRole('row').filter({ hasText: name });
      await row.getByRole('button', { name: 'Disable', exact: true }).click();
      await row.getByRole('button', { name: 'Enable', exact: true }).waitFor();
      const account = await gw.gateway.services.accounts.require(name);
      expect(account.disabled_at).to.not.equal(null);
    });

    browser.scenario("the administrator's own account offers no Disable (the gateway would refuse it) and says why", async (page) => {
      await admin.enter(page);
      await openPanel(page, '/accounts');
      const own = page.getByRole('row').filter({ has: page.getByTestId('own-account') });
      expect(await own.count()).to.equal(1);
      expect(await own.getByRole('button').count()).to.equal(0);
      expect(await own.getByTestId('own-account').textContent()).to.contain('cannot be disabled');
      expect(await own.getByRole('rowheader').textContent()).to.equal(gw.tenant.accountName);
    });
  });

  describe('retention', () => {
    browser.scenario('an owner limits how long text is kept and hashes numbers there; days out of range, or none, are refused by name, never taken for "for ever"', async (page) => {
      await admin.enter(page);
      await openPanel(page, '/retention');
      await page.getByLabel('Remove message text after a time').check();
      for (const days of ['0', '']) {
        await page.getByLabel('Days to keep text').fill(days);
        await page.getByRole('button', { name: 'Save' }).click();
        await page.locator('.field-invalid .field-error').filter({ hasText: 'Days to keep text' }).waitFor();
        expect((await gw.tenant.api.get('/account/retention')).body.keep_text_days, `days "${days}"`).to.equal(null);
        expect(await page.getByLabel('Days to keep text').inputValue(), 'kept as typed beside its error').to.equal(days);
      }

      await page.getByLabel('Days to keep text').fill('30');
      await page.getByLabel('Then keep numbers only as hashes').check();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      expect((await gw.tenant.api.get('/account/retention')).body).to.include({ keep_text_days: 30, hash_recipients: true });
      expect(await page.getByRole('link', { name: 'Export as CSV' }).getAttribute('href')).to.equal('/api/ext/v1/account/export?format=csv');

      await page.getByLabel('Remove message text after a time').uncheck();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      expect((await gw.tenant.api.get('/account/retention')).body).to.include({ keep_text_days: null, hash_recipients: false });
    });
  });
});
