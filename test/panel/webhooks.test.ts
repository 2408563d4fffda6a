// Webhooks in the panel: the secret shown once is the one deliveries are signed with, the
// callback id shown is the one the legacy API takes, and the detail page rotates, disables,
// retries and deletes.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { createWebhook, deliveryLog, eventually, readWebhook, verifies, webhookConfig } from '../support/webhooks.ts';
import { LEGACY_SMS_KEYS, OBJECT_ID } from '../support/legacy.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { quickPhone } from './support/seed.ts';

describe('panel: webhooks', () => {
  // Deliveries are given up 300 ms after their event, so a failed one exists within a test.
  const gw = useGateway({ tenant: 'once', config: { webhooks: webhookConfig({ retryForMs: 300 }) } });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('a webhook created in the panel: its callback id works in legacy POST /sms/send, and its shown secret signs the deliveries', async (page) => {
    const receiver = await gw.receiver();
    await quickPhone(gw);
    await owner.enter(page);
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

    const sent = await gw.tenant.root.post('/sms/send', { phone_number: '+12025550141', message: 'Legacy hello', callback_id: callbackId });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
    expect(sent.body.id).to.match(OBJECT_ID);
    const stored = await gw.tenant.root.post('/sms/get', { id: sent.body.id });
    expect(Object.keys(stored.body)).to.have.members([...LEGACY_SMS_KEYS]);
    expect(stored.body.callback_id).to.equal(callbackId);

    const [delivery] = await receiver.waitFor(1);
    expect(verifies(secret, delivery!), 'the delivery is signed with the secret the panel showed').to.equal(true);
  });

  browser.scenario('the detail page rotates the secret, disables and enables the webhook, and deletes it after asking', async (page) => {
    const receiver = await gw.receiver();
    const { webhook } = await createWebhook(gw.tenant, receiver.url, ['sms.status_changed']);
    await owner.enter(page);
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

  browser.scenario('a delivery that was given up is retried from the delivery log and reaches the receiver', async (page) => {
    const receiver = await gw.receiver();
    receiver.respond = () => 500;
    const { webhook } = await createWebhook(gw.tenant, receiver.url, ['sms.status_changed']);
    await quickPhone(gw, 'Retry phone');
    expect((await gw.tenant.api.post('/sms', { phone: '+12025550143', message: 'To be retried' })).status).to.equal(201);
    const failed = await eventually('a delivery given up', async () => (await deliveryLog(gw.tenant, webhook.id)).find((delivery) => delivery.status === 'failed'));
    expect(failed.last_status_code).to.equal(500);

    await owner.enter(page);
    await openPanel(page, `/webhooks/${webhook.id}`);
    expect(await page.getByRole('columnheader').count()).to.be.greaterThan(0);
    receiver.respond = () => 204;
    const answered = receiver.waitFor(1, (request) => request.status === 204);
    await page.getByRole('button', { name: 'Retry' }).first().click();
    await answered;
    await eventually('a retried delivery delivered', async () => ((await deliveryLog(gw.tenant, webhook.id)).some((delivery) => delivery.status === 'delivered') ? true : undefined));
  });
});
