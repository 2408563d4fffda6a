// The device agent with its journal on disk, against a real gateway over real MQTT: an encrypted
// task reaches the radio decrypted, while everything the agent writes down holds only the
// ciphertext; a radio that cannot send data SMS fails them with data_sms_unsupported and is never
// handed one.
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAgent } from '../../agent/src/agent.ts';
import { Journal } from '../../agent/src/journal/journal.ts';
import { encrypt } from '../../src/common/end-to-end.ts';
import { liftLimits } from '../support/devices.ts';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import { ScriptedRadio } from '../agent/support/scripted-radio.ts';

const PASSPHRASE = 'known to the phone';

describe('end-to-end encryption and data SMS in the device agent', () => {
  const fx = useGateway();
  const dirs: string[] = [];
  const agents: DeviceAgent[] = [];
  afterEach(async () => {
    await Promise.allSettled(agents.splice(0).map((agent) => agent.stop()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function startAgent(radio: ScriptedRadio, passphrase?: string): Promise<{ id: string; dir: string }> {
    const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'agent-phone');
    await liftLimits(fx.gateway, fx.tenant, device.id);
    const dir = mkdtempSync(join(tmpdir(), 'agent-e2e-'));
    dirs.push(dir);
    const agent = new DeviceAgent({
      brokerUrl: `mqtt://127.0.0.1:${fx.gateway.mqttPort}`,
      deviceId: device.id,
      token,
      radio,
      journal: Journal.open(dir),
      reconnectPeriodMs: 50,
      ...(passphrase ? { passphrase } : {}),
    });
    agents.push(agent);
    await agent.start();
    return { id: device.id, dir };
  }

  function finalStatus(id: string) {
    return eventually(`SMS ${id} to end`, async () => {
      const read = await fx.tenant.api.get(`/sms/${id}`);
      return ['sent', 'delivered', 'failed_send'].includes(read.body.status) ? read.body : undefined;
    });
  }

  it('hands the radio the plaintext and writes only the ciphertext to its journal', async () => {
    const radio = new ScriptedRadio();
    const { id: deviceId, dir } = await startAgent(radio, PASSPHRASE);
    const sending = radio.nextSend();
    const reply = await fx.tenant.api.post('/sms/encrypted', {
      phone: await encrypt('+79161234567', PASSPHRASE),
      message: await encrypt('secret 8642', PASSPHRASE),
      device_id: deviceId,
    });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    const sent = await sending;
    expect(sent).to.include({ smsId: reply.body.id, phone: '+79161234567', message: 'secret 8642' });
    expect((await finalStatus(reply.body.id)).status).to.equal('sent');
    const written = readdirSync(dir).map((file) => readFileSync(join(dir, file), 'utf8')).join('\n');
    expect(written).to.contain(reply.body.message);
    // The words, not the digits alone: four digits can turn up in an id by chance.
    expect(written).to.not.contain('secret 8642');
    expect(written).to.not.contain('79161234567');
  });

  it('refuses a data SMS at once for an agent whose radio cannot send one, as its heartbeat says, handing it nothing', async () => {
    const radio = new ScriptedRadio();
    const { id: deviceId } = await startAgent(radio);
    // The heartbeat the agent sends on connecting says what its radio can do.
    await eventually('the heartbeat\'s capabilities recorded', async () => (await fx.tenant.api.get(`/devices/${deviceId}`)).body.capabilities !== null);
    const reply = await fx.tenant.api.post('/sms/data', { phone: '+79161234567', data: '3q2+7w==', port: 16001, device_id: deviceId });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(409);
    expect(reply.body.error.code).to.equal('device_not_capable');
    expect(radio.sent).to.deep.equal([]);
  });
});
