// A phone that keeps its MQTT session (clean: false, as docs/devices.md asks) and comes back after
// a clean disconnect must be handed SMS again, whatever order its packets and the broker's own work
// arrive in.
//
// The packet order covered: while the phone is away its settings change, so the broker keeps the
// new settings messages for its stored session. On CONNECT the broker restores the session's
// subscriptions (tasks and settings), sends CONNACK, and only then writes out the messages it
// kept; the phone subscribes as soon as it has CONNACK, so its SUBSCRIBE is handled while the kept
// messages are still going out, before the broker announces the connection ready ("clientReady").
// The gateway learns of the connection only at that announcement, so it must look at what the
// connection is subscribed to then, not only at SUBSCRIBE packets that come after it.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import { nextTask, topic, type RawClient } from '../support/mqtt.ts';
import { UNPACED } from '../support/task-phone.ts';

const PHONE = '+79161234567';
const ROUNDS = 20;

describe('device channel: a stored session that reconnects', () => {
  const fx = useGateway({ tenant: 'once' });

  it(`when a phone with a stored session reconnects after its settings changed, then it is handed the SMS named for it (${ROUNDS} rounds)`, async function () {
    this.timeout(60_000);
    const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'kept-session');
    const connect = async (subscribe: boolean): Promise<RawClient> => {
      const raw = await fx.clients.connect({ clientId: device.id, username: device.id, password: token, clean: false });
      // Subscribed at once after CONNACK, as a phone does, without waiting for anything else.
      if (subscribe) await raw.subscribe([topic(device.id, 'tasks'), topic(device.id, 'settings')], 1);
      return raw;
    };
    const online = async (expected: boolean) =>
      eventually(`the device ${expected ? 'online' : 'offline'}`, async () => (await fx.tenant.api.get(`/devices/${device.id}`)).body.is_online === expected);

    // Twenty SMS within seconds: no pacing limit may be what holds one back.
    expect((await fx.tenant.api.patch(`/devices/${device.id}/settings`, UNPACED)).status).to.equal(200);
    let raw = await connect(true);
    await online(true);
    for (let round = 1; round <= ROUNDS; round++) {
      await raw.client.endAsync();
      await online(false);
      for (let change = 0; change < 3; change++) {
        const patched = await fx.tenant.api.patch(`/devices/${device.id}/settings`, { name_custom: `round ${round}.${change}` });
        expect(patched.status, 'settings changed while away').to.equal(200);
      }
      raw = await connect(true);
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: `round ${round}`, device_id: device.id });
      expect(created.status).to.equal(201);
      const task = await nextTask(raw, device.id, created.body.id, 4_000).catch(async (error: Error) => {
        const read = await fx.tenant.api.get(`/devices/${device.id}`);
        throw new Error(`round ${round}: no task (device is_online ${read.body.is_online}): ${error.message}`);
      });
      expect(task.phone).to.equal(PHONE);
      // Sent, so that no task left open fills the phone's send window in later rounds.
      await raw.publish(topic(device.id, 'status'), JSON.stringify({ sms_id: task.sms_id, status: 'processing' }));
      await raw.publish(topic(device.id, 'status'), JSON.stringify({ sms_id: task.sms_id, status: 'sent' }));
    }
  });

  it('when a phone with a stored session reconnects and does not subscribe again, then its restored subscription to its tasks is enough', async () => {
    const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'restored-only');
    const options = { clientId: device.id, username: device.id, password: token, clean: false };
    const first = await fx.clients.connect(options);
    await first.subscribe([topic(device.id, 'tasks'), topic(device.id, 'settings')], 1);
    await first.client.endAsync();
    await eventually('the device offline', async () => (await fx.tenant.api.get(`/devices/${device.id}`)).body.is_online === false);
    await fx.tenant.api.patch(`/devices/${device.id}/settings`, { name_custom: 'while away' });

    const again = await fx.clients.connect(options);
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'restored', device_id: device.id });
    const task = await nextTask(again, device.id, created.body.id, 4_000);
    expect(task.sms_id).to.equal(created.body.id);
  });
});
