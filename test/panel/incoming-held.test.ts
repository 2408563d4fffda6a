// The panel and received SMS: a device registered with the panel's form forwards what it
// receives, and a device's page shows how many received SMS its phone keeps while forwarding is
// off; switched on in the form, the phone forwards them and the page shows none kept.
import { expect } from 'chai';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import { nextEvent } from '../support/devices.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: received SMS kept on the phone', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('a device registered with the form forwards what it receives, as its settings show', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/devices/new');
    await page.getByLabel('Device name').fill('Front desk phone');
    await page.getByRole('button', { name: 'Register device' }).click();
    await page.getByTestId('pairing-url').waitFor();
    const devices = (await gw.tenant.api.get('/devices?limit=100')).body.data as { id: string; name: string; forward_incoming_sms: boolean }[];
    const device = devices.find((candidate) => candidate.name === 'Front desk phone')!;
    expect(device.forward_incoming_sms).to.equal(true);
    await openPanel(page, `/devices/${device.id}`);
    expect(await page.getByLabel('Forward incoming SMS').isChecked()).to.equal(true);
  });

  browser.scenario('a phone keeping received SMS shows how many; switched on in the form, it forwards them and keeps none', async (page) => {
    const { device, token } = await gw.registerDevice('Keeping phone');
    expect((await gw.tenant.api.patch(`/devices/${device.id}/settings`, { forward_incoming_sms: false })).status).to.equal(200);
    const phone = gw.track(new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gw.gateway.mqttPort}`, deviceId: device.id, token, reconnectPeriodMs: 100 }));
    await phone.connect();
    await eventually('the phone to have its settings', () => phone.agent.settings?.forward_incoming_sms === false);
    await phone.receive('+12025550111', 'STOP');
    await phone.receive('+12025550122', 'Yes, see you then');
    await eventually('the device to show 2 kept SMS', async () => (await gw.tenant.api.get(`/devices/${device.id}`)).body.incoming_held === 2);

    await owner.enter(page);
    await openPanel(page, `/devices/${device.id}`);
    expect(await page.getByTestId('device-incoming-held').textContent()).to.equal('2 SMS, forwarded once "Forward incoming SMS" is on');

    const on = nextEvent(phone, 'settings', (settings: Record<string, unknown>) => settings.forward_incoming_sms === true);
    await page.getByLabel('Forward incoming SMS').setChecked(true);
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await on;
    const stored = await eventually('both kept SMS stored', async () => {
      const rows = (await gw.tenant.api.get('/incoming')).body.data as { message: string }[];
      return rows.length === 2 && rows;
    });
    expect(stored.map((row) => row.message).reverse()).to.deep.equal(['STOP', 'Yes, see you then']);
    await eventually('the device to show no kept SMS', async () => (await gw.tenant.api.get(`/devices/${device.id}`)).body.incoming_held === 0);
    await page.reload();
    await page.getByTestId('device-incoming-held').filter({ hasText: 'none' }).waitFor();
  });
});
