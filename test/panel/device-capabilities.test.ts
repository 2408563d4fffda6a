// A device's page offers only what the phone says it can do: a phone running the agent on a modem
// dials no USSD and uploads no recordings, so its page has no USSD console and no "Record calls";
// the simulated phone, which does both, has them. Checked with axe like every page.
import { expect } from 'chai';
import { DeviceAgent } from '../../agent/src/agent.ts';
import { Journal } from '../../agent/src/journal/journal.ts';
import { heartbeatRecorded } from '../support/legacy.ts';
import { useGateway } from '../support/use-gateway.ts';
import { ScriptedRadio } from '../agent/support/scripted-radio.ts';
import { checkA11y, openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';
import { quickPhone } from './support/seed.ts';

describe('panel: device actions follow what the phone can do', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  /** A phone running the agent alone, on a modem-like radio; connected once its heartbeat is recorded. */
  async function modemAgent(): Promise<string> {
    const { device, token } = await gw.gateway.services.devices.register(gw.tenant.accountId, 'Modem on the shelf');
    const radio = new ScriptedRadio();
    radio.statusAnswer = { ...radio.statusAnswer, type: 'modem', name: 'USB modem' };
    const recorded = heartbeatRecorded(gw.gateway, device.id);
    const agent = new DeviceAgent({ brokerUrl: `mqtt://127.0.0.1:${gw.gateway.mqttPort}`, deviceId: device.id, token, radio, journal: Journal.open(), reconnectPeriodMs: 50 });
    gw.onCleanup(() => agent.stop());
    await agent.start();
    await recorded;
    return device.id;
  }

  browser.scenario('a modem agent\'s page has no USSD console and no "Record calls"; a phone that does both has them', async (page) => {
    const modem = await modemAgent();
    await owner.enter(page);
    await openPanel(page, `/devices/${modem}`);
    await page.getByRole('heading', { name: 'Settings' }).first().waitFor();
    expect(await page.getByRole('region', { name: 'USSD', exact: true }).count()).to.equal(0);
    expect(await page.getByRole('checkbox', { name: 'Record calls' }).count()).to.equal(0);
    expect(await page.getByRole('checkbox', { name: 'Forward incoming SMS' }).count(), 'the other settings are there').to.equal(1);
    await checkA11y(page, 'device page of a modem agent');

    const phone = await quickPhone(gw, 'Phone that does everything');
    await openPanel(page, `/devices/${phone.id}`);
    await page.getByRole('region', { name: 'USSD', exact: true }).waitFor();
    expect(await page.getByRole('checkbox', { name: 'Record calls' }).count()).to.equal(1);
  }, 30_000);
});
