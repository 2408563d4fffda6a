// MMS in the control panel: an MMS's page shows its kind, subject, recipients and parts (an image
// in place, served under the panel's CSP, a vCard as a download); the SMS list marks it MMS; the
// Incoming page shows a received MMS's image.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from '../panel/support/browser.ts';
import { useLoggedIn } from '../panel/support/logged-in.ts';
import { uploadMedia, VCARD } from './mms-fixture.ts';

/** A real 1x1 PNG, so that the browser can decode it. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

describe('panel: MMS', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('an MMS\'s page shows its subject, recipients, the image in place and the vCard as a download; the list marks it MMS', async (page) => {
    const image = (await uploadMedia(gw, gw.tenant.key!, PIXEL, 'image/png')).body;
    const card = (await uploadMedia(gw, gw.tenant.key!, VCARD, 'text/vcard')).body;
    const created = await gw.tenant.api.post('/mms', { phones: ['+12025550171', '+12025550172'], subject: 'Our picnic', message: 'See you there', media_ids: [image.id, card.id] });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);

    await owner.enter(page);
    await openPanel(page, `/sms/${created.body.id}`);
    await page.getByText('Our picnic').waitFor();
    await page.getByText('Group MMS').waitFor();
    await page.getByText('+12025550171, +12025550172').waitFor();
    const img = page.locator(`img[src="${image.download_path}"]`);
    await img.waitFor();
    // Decoded: served with its type under the panel's CSP (a blocked or broken image has no width).
    await img.evaluate((element) => new Promise<void>((resolve) => ((element as unknown as { naturalWidth: number }).naturalWidth > 0 ? resolve() : element.addEventListener('load', () => resolve()))));
    expect(await img.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth)).to.equal(1);
    const download = page.getByRole('link', { name: /Download text\/vcard/ });
    expect(await download.getAttribute('href')).to.equal(card.download_path);

    await openPanel(page, '/sms');
    const row = page.locator('tr', { hasText: '+12025550171' });
    await row.getByText('MMS').waitFor();
  });

  browser.scenario('the Incoming page shows a received MMS with its image', async (page) => {
    const phone = await gw.connectDevice({ apiUrl: gw.baseUrl });
    expect((await gw.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
    const received = await phone.receiveMms({ phone: '+12025550181', subject: 'Look', message: 'a pixel', parts: [{ contentType: 'image/png', bytes: PIXEL }] });
    expect(received.uploads.map((upload) => upload.status)).to.deep.equal([201]);
    await owner.enter(page);
    await openPanel(page, '/incoming');
    const row = page.locator('.incoming-mms-table tr', { hasText: '+12025550181' });
    await row.locator('img').waitFor();
    const shown = row.locator('img');
    await shown.evaluate((element) => new Promise<void>((resolve) => ((element as unknown as { naturalWidth: number }).naturalWidth > 0 ? resolve() : element.addEventListener('load', () => resolve()))));
    expect(await shown.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth)).to.equal(1);
  });
});
