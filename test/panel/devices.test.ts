// Devices in the panel: registering one (its credentials shown once, and they work), its
// presence changing live in the list, its settings saved through the API, and deleting it.
import { expect } from 'chai';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { agentInstallCommand } from '../../src/modules/devices/install-command.ts';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import { checkA11y, openPanel, screenshot, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { quickPhone, recordedCalls } from './support/seed.ts';

describe('panel: devices', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('registering a device shows its token once with a QR code, and a phone connects with those credentials', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/devices');
    await page.getByRole('link', { name: 'Register a device' }).click();
    await page.waitForURL(/#\/devices\/new$/);
    await page.getByLabel('Device name').fill('Reception phone');
    await page.getByRole('button', { name: 'Register device' }).click();

    const qr = page.getByRole('img', { name: "QR code with the device's credentials" });
    await qr.waitFor();
    expect(await qr.locator('svg').count()).to.equal(1);
    const shown = await page.getByTestId('shown-once').allTextContents();
    const devices = (await gw.tenant.api.get('/devices?limit=100')).body.data as { id: string; name: string }[];
    const device = devices.find((candidate) => candidate.name === 'Reception phone');
    expect(device, 'the registered device in GET /devices').to.not.equal(undefined);
    expect(await page.locator('main').textContent()).to.include(device!.id);
    // The QR code and the field say where this gateway's broker listens (the page's host).
    expect(await page.getByLabel('Broker address').inputValue()).to.equal(`mqtt://127.0.0.1:${gw.gateway.mqttPort}`);
    // The pairing URL, as text beside the QR code, for the device agent or a native app.
    const pairing = (await page.getByTestId('pairing-url').textContent())!.trim();
    expect(pairing).to.match(new RegExp(`^smsgw://127\\.0\\.0\\.1:${gw.gateway.mqttPort}\\?v=1&device=${device!.id}&token=`));
    expect(await page.getByTestId('agent-command').textContent()).to.equal(`sms-gateway-agent --pairing '${pairing}'`);
    // On a phone, one line for Termux installs the agent from this gateway and pairs it with the same URL.
    const installLine = agentInstallCommand(gw.baseUrl, pairing);
    expect((await page.getByTestId('install-command').textContent())!.trim()).to.equal(installLine);
    // A corrected broker address rebuilds the URL around it; a wrong one says how to write it.
    await page.getByLabel('Broker address').fill('mqtts://phones.example.com:8883');
    expect((await page.getByTestId('pairing-url').textContent())!.trim()).to.equal(
      pairing.replace(`127.0.0.1:${gw.gateway.mqttPort}`, 'phones.example.com:8883').replace(/(&token=[^&]*)/, '$1&tls=1'),
    );
    expect((await page.getByTestId('install-command').textContent())!.trim(), 'the install line follows the broker address').to.equal(
      installLine.replace(pairing, (await page.getByTestId('pairing-url').textContent())!.trim()),
    );
    await page.getByLabel('Broker address').fill('phones.example.com');
    await page.getByText('Write it as mqtt://host:port').waitFor();
    expect(await page.getByTestId('pairing-url').count()).to.equal(0);
    await page.getByLabel('Broker address').fill(`mqtt://127.0.0.1:${gw.gateway.mqttPort}`);
    expect((await page.getByTestId('pairing-url').textContent())!.trim()).to.equal(pairing);
    await screenshot(page, 'device-register-done');
    await checkA11y(page, 'device registration with credentials');

    // The token is one of the values shown once; the one the broker accepts.
    const phone = new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gw.gateway.mqttPort}`, deviceId: device!.id, token: '', reconnectPeriodMs: 0 });
    let connected = false;
    for (const token of shown.map((text) => text.trim()).filter((text) => text && text !== device!.id)) {
      const candidate = gw.track(new SimulatedDevice({ ...phone.options, token }));
      connected = await candidate.connect().then(
        () => true,
        () => false,
      );
      if (connected) break;
    }
    expect(connected, 'a phone connects with the token the panel showed').to.equal(true);
  });

  browser.scenario('a phone connecting flips its row in the device list to online without a reload', async (page) => {
    const { device, token } = await gw.registerDevice('Warehouse phone');
    await owner.enter(page);
    await openPanel(page, '/devices');
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Warehouse phone' }) });
    await row.locator('.badge', { hasText: /^offline$/ }).waitFor();
    expect(await row.getByRole('link', { name: 'Warehouse phone' }).getAttribute('href')).to.equal(`#/devices/${device.id}`);
    await page.evaluate(() => Object.assign(globalThis, { panelTestMark: true }));

    const phone = gw.track(new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gw.gateway.mqttPort}`, deviceId: device.id, token, reconnectPeriodMs: 100 }));
    await phone.connect();
    await row.locator('.badge', { hasText: /^online$/ }).waitFor();
    expect(await page.evaluate(() => (globalThis as { panelTestMark?: boolean }).panelTestMark)).to.equal(true);
  });

  browser.scenario('a setting changed in the device form is what GET /devices/{id} answers', async (page) => {
    const { device } = await gw.registerDevice('Settings phone');
    await owner.enter(page);
    await openPanel(page, `/devices/${device.id}`);
    const before = (await gw.tenant.api.get(`/devices/${device.id}`)).body;

    await page.getByLabel(/per hour/i).fill('123');
    const battery = page.getByLabel(/battery/i);
    await battery.setChecked(!before.notify_low_battery);
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();

    const after = (await gw.tenant.api.get(`/devices/${device.id}`)).body;
    expect(after.limits.per_hour).to.equal(123);
    expect(after.notify_low_battery).to.equal(!before.notify_low_battery);
    // Nothing else changed.
    expect(after.limits.per_minute).to.equal(before.limits.per_minute);
    expect(after.send_window).to.equal(before.send_window);
  });

  browser.scenario('a limit the API refuses is shown beside its field and nothing is saved', async (page) => {
    const { device } = await gw.registerDevice('Refused settings phone');
    await owner.enter(page);
    await openPanel(page, `/devices/${device.id}`);
    await page.getByLabel(/per hour/i).fill('0');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.locator('.field-invalid').first().waitFor();
    expect((await gw.tenant.api.get(`/devices/${device.id}`)).body.limits.per_hour).to.equal(300);
  });

  browser.scenario('the device group is set, refused beside its field when misnamed, shown on the device and in the list, and cleared', async (page) => {
    const { device } = await gw.registerDevice('Grouped phone');
    await owner.enter(page);
    await openPanel(page, `/devices/${device.id}`);
    const group = page.getByLabel('Device group');
    const save = () => page.getByRole('button', { name: 'Save settings' }).click();
    const saved = page.getByRole('status').filter({ hasText: 'Settings saved.' });
    expect(await group.inputValue(), 'a new device is in no group').to.equal('');
    expect(await page.getByTestId('device-group').textContent()).to.equal('none');

    await group.fill('uk-sims');
    await save();
    await saved.waitFor();
    expect((await gw.tenant.api.get(`/devices/${device.id}`)).body.group).to.equal('uk-sims');
    await page.getByTestId('device-group').filter({ hasText: /^uk-sims$/ }).waitFor();

    // A name the API refuses: its message under the field, tied to the input; the group stays.
    await group.fill('UK Sims');
    await save();
    const invalid = page.locator('.field-invalid').filter({ has: group });
    await invalid.waitFor();
    expect(await group.getAttribute('aria-invalid')).to.equal('true');
    expect(await invalid.locator('.field-error').textContent()).to.contain('lowercase letters');
    expect(await saved.count()).to.equal(0);
    expect((await gw.tenant.api.get(`/devices/${device.id}`)).body.group).to.equal('uk-sims');

    await openPanel(page, '/devices');
    const row = page.locator(`tr[data-device-id="${device.id}"]`);
    await row.getByRole('cell', { name: 'uk-sims', exact: true }).waitFor();

    // Emptied: the device leaves its group.
    await openPanel(page, `/devices/${device.id}`);
    expect(await group.inputValue()).to.equal('uk-sims');
    await group.fill('');
    await save();
    await saved.waitFor();
    expect((await gw.tenant.api.get(`/devices/${device.id}`)).body.group).to.equal(null);
    await page.getByTestId('device-group').filter({ hasText: /^none$/ }).waitFor();
    await checkA11y(page, 'device page after a group change');
  });

  browser.scenario('"New token" asks first, disconnects the phone using the old token, and shows the new pairing URL, with which a phone connects', async (page) => {
    const { device, token } = await gw.registerDevice('Token phone');
    const brokerUrl = `mqtt://127.0.0.1:${gw.gateway.mqttPort}`;
    const old = gw.track(new SimulatedDevice({ brokerUrl, deviceId: device.id, token, reconnectPeriodMs: 0 }));
    await old.connect();
    await owner.enter(page);
    await openPanel(page, `/devices/${device.id}`);

    // Dismissed: nothing changes.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'New token' }).click();
    expect(gw.gateway.services.presence.isOnline(device.id), 'dismissed: still connected').to.equal(true);

    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'New token' }).click();
    const qr = page.getByRole('img', { name: "QR code with the device's credentials" });
    await qr.waitFor();
    expect(asked).to.contain('disconnected');
    const pairing = (await page.getByTestId('pairing-url').textContent())!.trim();
    const newToken = new URLSearchParams(pairing.slice(pairing.indexOf('?') + 1)).get('token')!;
    expect(newToken).to.be.a('string').and.not.equal(token);
    expect((await page.getByTestId('shown-once').first().textContent())!.trim()).to.equal(newToken);
    await eventually('the phone with the old token is disconnected', async () => (gw.gateway.services.presence.isOnline(device.id) ? undefined : true));
    await screenshot(page, 'device-new-token');
    await checkA11y(page, 'device page with a new token');

    const renewed = gw.track(new SimulatedDevice({ brokerUrl, deviceId: device.id, token: newToken, reconnectPeriodMs: 0 }));
    await renewed.connect();
    expect(gw.gateway.services.presence.isOnline(device.id)).to.equal(true);
  });

  browser.scenario('deleting a device asks first, then it is gone from the API', async (page) => {
    const { device } = await gw.registerDevice('Old phone');
    await owner.enter(page);
    await openPanel(page, `/devices/${device.id}`);
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Delete device' }).click();
    await page.waitForURL(/#\/devices$/);
    expect(asked).to.not.equal('');
    await eventually('the device deleted', async () => ((await gw.tenant.api.get(`/devices/${device.id}`)).status === 404 ? true : undefined));
  });

  browser.scenario('the call log lists the phone\'s calls, and a recorded one plays from the gateway with the session (Range answered)', async (page) => {
    const phone = await quickPhone(gw, 'Calling phone');
    await recordedCalls(gw, phone);
    await owner.enter(page);
    await openPanel(page, '/calls', 'Calls');
    const rows = page.locator('main tbody tr').filter({ hasText: 'Calling phone' });
    // The page's heading comes before its rows, which the page asks the API for: wait for them.
    await rows.nth(1).waitFor();
    expect(await rows.count()).to.equal(2);
    const missed = rows.filter({ hasText: '+12025550198' });
    expect(await missed.locator('.badge').textContent()).to.equal('missed');
    expect(await missed.getByTestId('call-recording').count()).to.equal(0);
    const player = rows.filter({ hasText: '+12025550197' }).getByTestId('call-recording');
    const src = await player.getAttribute('src');
    expect(src).to.match(/^\/api\/ext\/v1\/calls\/[0-9a-f-]{36}\/recording$/);
    // What the browser's player asks for: the first bytes, with the session cookie.
    const first = await page.context().request.get(src!, { headers: { range: 'bytes=0-3' } });
    expect(first.status()).to.equal(206);
    expect((await first.body()).toString('ascii')).to.equal('RIFF');
    await screenshot(page, 'calls');
  });
});

