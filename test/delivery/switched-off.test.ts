// Switching a device off (can_send_sms: false, legacy is_active: false) destroys no queued work.
// The tasks its phone has not acknowledged are taken back and its phone is told to drop them
// (revoke, reason device_disabled): SMS for any device go back to the pool, SMS named for it wait
// in its queue, pending, and are handed to it again once it is switched on. What its phone
// acknowledged stays its own (it may be on the air). Creating a new SMS for a device that is
// switched off is still refused (409 device_cannot_send): the client hears it at once.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { nextEvent } from '../support/devices.ts';
import { mqttUrl, nextTask, takeTasks, topic, type RawClient } from '../support/mqtt.ts';
import { SimulatedDevice, type SimulatedDeviceOptions } from '../../src/simulator/device.ts';
import { legacyGet } from '../support/legacy.ts';

const PHONE = '+79161234567';

describe('delivery: a device switched off and on again', () => {
  const fx = useGateway();

  /** A phone that takes tasks, hears revokes, and reports only what the test says. */
  async function rawPhone(): Promise<{ id: string; objectId: string; raw: RawClient }> {
    const { device, token } = await fx.registerDevice('switchable');
    const raw = await fx.clients.device(device.id, token);
    expect(await raw.subscribe(topic(device.id, 'revoke'))).to.deep.equal([1]);
    await takeTasks(raw, device.id);
    return { id: device.id, objectId: device.object_id, raw };
  }

  /** A simulated phone (the protocol's rules, the app's behaviour) for a registered device; stopped after the test. */
  async function simulated(device: { id: string }, token: string, options: Partial<SimulatedDeviceOptions> = {}): Promise<SimulatedDevice> {
    const phone = fx.track(new SimulatedDevice({ brokerUrl: mqttUrl(fx.gateway), deviceId: device.id, token, reconnectPeriodMs: 100, ...options }));
    await phone.connect();
    return phone;
  }

  async function send(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'switch', ...extra });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id;
  }

  async function sms(id: string) {
    return (await fx.tenant.api.get(`/sms/${id}`)).body;
  }

  const steps = (body: { history: { internal_status: string }[] }) => body.history.map((entry) => entry.internal_status);

  function revokeOf(phone: { id: string; raw: RawClient }, smsId: string) {
    return phone.raw.nextMessage((message) => message.topic === topic(phone.id, 'revoke') && JSON.parse(message.payload).sms_id === smsId);
  }

  async function canSend(deviceId: string, value: boolean): Promise<void> {
    const reply = await fx.tenant.api.patch(`/devices/${deviceId}/settings`, { can_send_sms: value });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  }

  describe('when a device whose phone holds a task named for it, not acknowledged, is switched off', () => {
    it('then the SMS waits in its queue, pending and not failed, and the phone is told to drop it', async () => {
      const phone = await rawPhone();
      const named = await send({ device_id: phone.id });
      await nextTask(phone.raw, phone.id, named);
      const revoked = revokeOf(phone, named);

      await canSend(phone.id, false);
      expect(JSON.parse((await revoked).payload)).to.deep.equal({ sms_id: named, reason: 'device_disabled' });
      const waiting = await sms(named);
      expect(waiting).to.include({ status: 'pending', device_id: phone.id, reason: null });
      expect(steps(waiting)).to.deep.equal(['pending']);
      const device = (await fx.tenant.api.get(`/devices/${phone.id}`)).body;
      expect(device.queue).to.include({ in_flight: 0, waiting: 1, blocked_by: 'cannot_send' });
    });

    it('then the phone acknowledging it anyway is told again to drop it, and the SMS still waits', async () => {
      const phone = await rawPhone();
      const named = await send({ device_id: phone.id });
      await nextTask(phone.raw, phone.id, named);
      await canSend(phone.id, false);
      await revokeOf(phone, named);
      const again = phone.raw.messages.length;

      await phone.raw.publish(topic(phone.id, 'status'), JSON.stringify({ sms_id: named, status: 'processing' }));
      const told = await phone.raw.nextMessage((message) => phone.raw.messages.indexOf(message) >= again && message.topic === topic(phone.id, 'revoke'));
      expect(JSON.parse(told.payload)).to.deep.equal({ sms_id: named, reason: 'device_disabled' });
      const waiting = await sms(named);
      expect(waiting).to.include({ status: 'pending', device_id: phone.id });
      expect(steps(waiting)).to.deep.equal(['pending']);
    });

    it('then switched on again, it is handed to the phone again, and sent once', async () => {
      const { device, token } = await fx.registerDevice('simulated');
      // The phone waits a moment before it acknowledges a task, as a real one may: long enough
      // for the switch-off to reach it first.
      const phone = await simulated(device, token, { delays: { processing: 1_000 } });
      const named = await send({ device_id: device.id });
      await nextEvent(phone, 'task', (task) => task.sms_id === named);
      const revoked = nextEvent(phone, 'revoked', (id) => id === named);
      await canSend(device.id, false);
      await revoked;

      const delivered = nextEvent(phone, 'report', (id, status) => id === named && status === 'delivered', 10_000);
      const handedAgain = nextEvent(phone, 'task', (task, redelivered) => task.sms_id === named && !redelivered);
      await canSend(device.id, true);
      await handedAgain;
      await delivered;
      expect(phone.sendCount.get(named), 'sent over the radio').to.equal(1);
      const done = await sms(named);
      expect(done).to.include({ status: 'delivered', device_id: device.id });
      expect(steps(done)).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
    });
  });

  describe('when a device whose phone holds a task for any device is switched off', () => {
    it('then the task goes back to the pool, the phone is told to drop it, and the SMS waits there unassigned', async () => {
      const phone = await rawPhone();
      const pooled = await send();
      await nextTask(phone.raw, phone.id, pooled);
      const revoked = revokeOf(phone, pooled);
      await canSend(phone.id, false);
      expect(JSON.parse((await revoked).payload)).to.deep.equal({ sms_id: pooled, reason: 'device_disabled' });
      expect(await sms(pooled)).to.include({ status: 'pending', device_id: null });
    });
  });

  describe('when a device with SMS waiting for it, never handed out, is switched off with legacy is_active and on again', () => {
    it('then they stay waiting (status 0) while it is off, and go to it once it is on', async () => {
      const { device, token } = await fx.registerDevice('legacy switch');
      // Queued for it while it is not connected: only waiting, handed to nobody.
      const waiting = [await send({ device_id: device.id }), await send({ device_id: device.id })];
      expect((await fx.tenant.root.post('/devices/edit', { device_id: device.object_id, is_active: false })).status).to.equal(204);
      for (const id of waiting) expect(await legacyGet(fx.tenant, id)).to.include({ status: 0, message_status: 'waiting', device_id: device.object_id });

      const phone = await simulated(device, token);
      const delivered = waiting.map((id) => nextEvent(phone, 'report', (smsId, status) => smsId === id && status === 'delivered'));
      expect((await fx.tenant.root.post('/devices/edit', { device_id: device.object_id, is_active: true })).status).to.equal(204);
      await Promise.all(delivered);
      for (const id of waiting) expect(await legacyGet(fx.tenant, id)).to.include({ status: 4 });
    });
  });

  describe('when a client sends an SMS naming a device that is switched off', () => {
    it('then it is refused at once (409 device_cannot_send), as before', async () => {
      const { device } = await fx.registerDevice('off');
      await canSend(device.id, false);
      const refused = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'nope', device_id: device.id });
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('device_cannot_send');
    });
  });
});
