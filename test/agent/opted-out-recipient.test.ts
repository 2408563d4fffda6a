// The device agent against a real gateway over real MQTT: an end-to-end encrypted SMS to a number
// that sent STOP is refused on the phone, which alone can read its recipient. The agent holds the
// account's hashed suppression list from its settings; the radio never gets such an SMS, and the
// gateway records failed_send with reason recipient_opted_out. Covered both ways a STOP can come:
// while the agent is connected (new settings, no reconnect) and while it is away (its first
// settings carry the list, before the task that waited for it).
import { expect } from 'chai';
import { DeviceAgent } from '../../agent/src/agent.ts';
import type { DeviceSettings } from '../../agent/src/protocol/messages.ts';
import { encrypt } from '../../src/common/end-to-end.ts';
import { liftLimits, nextEvent } from '../support/devices.ts';
import { useGateway } from '../support/use-gateway.ts';
import { receive, receivingPhone } from '../opt-out/support.ts';
import { ScriptedRadio } from './support/scripted-radio.ts';

const PASSPHRASE = 'a passphrase only the client and its phones know';
const OPTED_OUT = '+79161234567';

describe('device agent: an encrypted SMS to a number that opted out', () => {
  const fx = useGateway();
  const agents: DeviceAgent[] = [];

  afterEach(async () => {
    await Promise.allSettled(agents.splice(0).map((agent) => agent.stop()));
  });

  async function register(): Promise<{ id: string; token: string }> {
    const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'agent-phone');
    await liftLimits(fx.gateway, fx.tenant, device.id);
    return { id: device.id, token };
  }

  function agentFor(device: { id: string; token: string }, radio: ScriptedRadio): DeviceAgent {
    const agent = new DeviceAgent({ brokerUrl: fx.mqttUrl, deviceId: device.id, token: device.token, radio, reconnectPeriodMs: 50, passphrase: PASSPHRASE });
    agents.push(agent);
    return agent;
  }

  async function postEncrypted(deviceId: string): Promise<string> {
    const reply = await fx.tenant.api.post('/sms/encrypted', { phone: await encrypt(OPTED_OUT, PASSPHRASE), message: await encrypt('Sale today only', PASSPHRASE), device_id: deviceId });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body.id as string;
  }

  async function expectRefused(smsId: string, radio: ScriptedRadio): Promise<void> {
    const sms = (await fx.tenant.api.get(`/sms/${smsId}`)).body;
    expect(sms).to.include({ status: 'failed_send', reason: 'recipient_opted_out' });
    expect(radio.sent, 'nothing handed to the radio').to.deep.equal([]);
    const [attempt] = (await fx.tenant.api.get(`/sms/${smsId}/attempts`)).body.data;
    expect(attempt).to.include({ result: 'failed', error_code: 'recipient_opted_out' });
  }

  describe('when the number sends STOP while the agent is connected', () => {
    it('then new settings bring the list without a reconnect, and the SMS is reported failed_send, never sent', async () => {
      const inbox = await receivingPhone(fx);
      const radio = new ScriptedRadio();
      const agent = agentFor(await register(), radio);
      await agent.start();
      let reconnects = 0;
      agent.on('reconnecting', () => reconnects++);
      const listed = nextEvent(agent, 'settings', (settings: DeviceSettings) => settings.opted_out !== undefined);
      await receive(inbox, OPTED_OUT, 'STOP');
      await listed;
      expect(agent.optedOut?.has(OPTED_OUT)).to.equal(true);
      // The same number as a phone may decrypt it: without +, or with 00.
      expect(agent.optedOut?.has(OPTED_OUT.slice(1))).to.equal(true);
      expect(agent.optedOut?.has(`00${OPTED_OUT.slice(1)}`)).to.equal(true);
      expect(reconnects).to.equal(0);

      let id: string | undefined;
      const failed = nextEvent(agent, 'report', (smsId, status) => smsId === id && status === 'failed_send');
      id = await postEncrypted(agent.id);
      await failed;
      await expectRefused(id, radio);
    });
  });

  describe('when the number sent STOP while the agent was away, after the SMS was created', () => {
    it('then the settings it gets on connecting carry the list, and the SMS waiting for it is refused', async () => {
      const inbox = await receivingPhone(fx);
      const device = await register();
      const id = await postEncrypted(device.id);
      await receive(inbox, OPTED_OUT, 'STOP');
      const radio = new ScriptedRadio();
      const agent = agentFor(device, radio);
      const failed = nextEvent(agent, 'report', (smsId, status) => smsId === id && status === 'failed_send');
      await agent.start();
      await failed;
      await expectRefused(id, radio);
    });
  });
});
