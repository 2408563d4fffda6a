// The device agent keeps its MQTT session (clean: false). Stopped cleanly and started again after
// its settings changed while it was away, it must be handed SMS again: the broker restores its
// subscriptions and writes out the settings it kept for it before it announces the connection,
// while the agent's own SUBSCRIBE is handled in between (see
// test/device-channel/stored-session-reconnect.test.ts for the packet order in detail).
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAgent } from '../../agent/src/agent.ts';
import { Journal } from '../../agent/src/journal/journal.ts';
import { liftLimits } from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import { useGateway } from '../support/use-gateway.ts';
import { ScriptedRadio } from './support/scripted-radio.ts';

const PHONE = '+79161234567';
const ROUNDS = 10;

describe('device agent: restarted with its stored session', () => {
  const fx = useGateway({ tenant: 'once' });
  let dir: string;
  let agent: DeviceAgent | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-kept-session-'));
  });
  after(async () => {
    await agent?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`when the agent is stopped, its settings change, and it starts again, then its radio gets the next SMS (${ROUNDS} rounds)`, async function () {
    this.timeout(60_000);
    const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'agent-kept-session');
    await liftLimits(fx.gateway, fx.tenant, device.id);
    const start = async (radio: ScriptedRadio) => {
      const started = new DeviceAgent({ brokerUrl: `mqtt://127.0.0.1:${fx.gateway.mqttPort}`, deviceId: device.id, token, radio, journal: Journal.open(dir), reconnectPeriodMs: 50 });
      await started.start();
      return started;
    };
    const online = (expected: boolean) =>
      eventually(`the device ${expected ? 'online' : 'offline'}`, async () => (await fx.tenant.api.get(`/devices/${device.id}`)).body.is_online === expected);

    agent = await start(new ScriptedRadio());
    await online(true);
    for (let round = 1; round <= ROUNDS; round++) {
      await agent.stop();
      await online(false);
      for (let change = 0; change < 3; change++) {
        expect((await fx.tenant.api.patch(`/devices/${device.id}/settings`, { name_custom: `round ${round}.${change}` })).status).to.equal(200);
      }
      const radio = new ScriptedRadio();
      agent = await start(radio);
      const handed = radio.nextSend();
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: `round ${round}`, device_id: device.id });
      expect(created.status).to.equal(201);
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`round ${round}: the radio got no SMS within 4000 ms`)), 4_000).unref());
      const sent = await Promise.race([handed, timeout]);
      expect(sent.phone).to.equal(PHONE);
    }
  });
});
