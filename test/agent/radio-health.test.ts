// The agent checks its radio and the gateway believes it: a Termux:API that stops answering makes
// the agent's heartbeat say the phone cannot send (termux_api_unresponsive), and the gateway then
// hands it no work (another device takes the pool's SMS; one named for it waits) until a heartbeat
// says it can again. Real gateway, real broker over TCP, the real agent on the Termux stand-in.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAgent } from '../../agent/src/agent.ts';
import { Journal } from '../../agent/src/journal/journal.ts';
import { createTermuxRadio } from '../../agent/src/radio/termux/index.ts';
import { liftLimits, nextEvent } from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import { useGateway } from '../support/use-gateway.ts';
import { TermuxPhone } from './support/termux-standin.ts';
import { createModemRadio } from '../../agent/src/radio/modem/index.ts';
import type { Radio } from '../../agent/src/radio/radio.ts';
import { TEST_TIMINGS } from './support/modem-fixture.ts';
import { ModemStandin } from './support/modem-standin.ts';

const PHONE = '+79161234567';
const STATUS_COMMANDS = ['termux-battery-status', 'termux-telephony-deviceinfo', 'termux-telephony-cellinfo'];

describe('device agent: a radio that cannot send gets no work', function () {
  this.timeout(180_000);
  const fx = useGateway();
  const agents: DeviceAgent[] = [];
  const phones: TermuxPhone[] = [];
  const dirs: string[] = [];
  const standins: ModemStandin[] = [];

  afterEach(async () => {
    await Promise.allSettled(agents.splice(0).map((agent) => agent.stop()));
    await Promise.allSettled(phones.splice(0).map((phone) => phone.remove()));
    await Promise.allSettled(standins.splice(0).map((standin) => standin.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('a Termux command that hangs is reported as termux_api_unresponsive: pool SMS go to another device, a named one waits, and a good heartbeat sends it', async () => {
    const phone = await TermuxPhone.create();
    phones.push(phone);
    await phone.setBattery({ percentage: 70, plugged: 'UNPLUGGED', status: 'DISCHARGING' });
    await phone.setDeviceInfo({ phone_count: 1, sim_state: 'ready', sim_operator_name: 'Telekom' });
    await phone.setCellInfo([]);
    for (const command of STATUS_COMMANDS) await phone.failNext(command, { hangMs: 10_000, stdout: '{}' });

    const { device, agent } = await startAgent('termux phone', createTermuxRadio(phone.options({ pollIntervalMs: 60_000, commandTimeoutMs: 1_000 })));

    const radio = await eventually(
      'a heartbeat saying the radio cannot send',
      async () => {
        const shown = (await fx.tenant.api.get(`/devices/${device.id}`)).body.radio;
        return shown?.can_send === false && shown;
      },
      10_000,
      50,
    );
    expect(radio.problem).to.equal('termux_api_unresponsive');
    expect(radio.detail).to.contain('no answer within 1 s');

    const other = await fx.connectDevice({ name: 'other' });
    const pooled = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'any phone' })).body;
    // A whole path on the embedded database, beside a loaded test run (the Termux stand-in's hung
    // commands are processes too): far more than the default 5 s.
    await nextEvent(other, 'report', (id, status) => id === pooled.id && status === 'delivered', 30_000);
    expect((await fx.tenant.api.get(`/sms/${pooled.id}`)).body.device_id).to.equal(other.id);

    const named = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'only this phone', device_id: device.id })).body;
    expect((await fx.tenant.api.get(`/devices/${device.id}`)).body.queue).to.include({ blocked_by: 'radio', waiting: 1 });
    expect((await phone.commandsRun()).filter((run) => run.command === 'termux-sms-send')).to.have.length(0);

    const sent = nextEvent(agent, 'report', (id, status) => id === named.id && status === 'sent', 60_000);
    for (const command of STATUS_COMMANDS) await phone.stopFailing(command);
    await sent;
    const sends = (await phone.commandsRun()).filter((run) => run.command === 'termux-sms-send');
    expect(sends.map((run) => run.stdin)).to.deep.equal(['only this phone']);
    // The heartbeat that sent it is stored; one the agent composed from a command still hanging
    // before may be written after it, until the next good one.
    await eventually('the radio shown able to send', async () => {
      const shown = (await fx.tenant.api.get(`/devices/${device.id}`)).body.radio;
      return shown?.can_send === true && shown.problem === null ? shown : undefined;
    }, 20_000, 100);
  });

  it('a modem answering +CREG: 0,0 is reported as not_registered, and once registered it is handed the SMS named for it', async () => {
    const registration: { registration: number } = { registration: 0 };
    const standin = await ModemStandin.start(registration);
    standins.push(standin);
    const { device, agent } = await startAgent('modem', createModemRadio({ path: standin.agentPath, ...TEST_TIMINGS }));

    const radio = await eventually(
      'a heartbeat saying the modem is not registered',
      async () => {
        const shown = (await fx.tenant.api.get(`/devices/${device.id}`)).body.radio;
        return shown?.can_send === false && shown;
      },
      10_000,
      50,
    );
    expect(radio).to.include({ problem: 'not_registered', detail: 'AT+CREG?: not registered, not searching (0)' });
    const named = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'over the modem', device_id: device.id })).body;
    expect((await fx.tenant.api.get(`/devices/${device.id}`)).body.queue).to.include({ blocked_by: 'radio', waiting: 1 });

    const sent = nextEvent(agent, 'report', (id, status) => id === named.id && status === 'sent', 15_000);
    registration.registration = 1;
    await sent;
    expect(standin.submits).to.have.length(1);
  });

  async function startAgent(name: string, radio: Radio): Promise<{ device: { id: string }; agent: DeviceAgent }> {
    const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, name);
    await liftLimits(fx.gateway, fx.tenant, device.id);
    const dir = mkdtempSync(join(tmpdir(), 'agent-radio-'));
    dirs.push(dir);
    const agent = new DeviceAgent({
      brokerUrl: `mqtt://127.0.0.1:${fx.gateway.mqttPort}`,
      deviceId: device.id,
      token,
      radio,
      journal: Journal.open(dir),
      reconnectPeriodMs: 50,
      heartbeatIntervalMs: 500,
    });
    agents.push(agent);
    await agent.start();
    return { device, agent };
  }
});
