// SMS the phones receive: forwarded by the device, stored per device and account only while
// forward_incoming_sms is on, stored once per device message id, and readable through
// GET /api/ext/v1/incoming (paged, newest first, permission sms:read, never another account's).
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { useGateway } from '../support/use-gateway.ts';
import { registerDevice, type Tenant } from '../support/tenant.ts';
import { expectError, expectIsoTimestamp, UUID } from '../support/expectations.ts';
import { topic, type RawClient } from '../support/mqtt.ts';
import { incomingRowsOf, stampIncoming } from '../support/test-data.ts';

const REJECTED = 'device_messages_rejected_total';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const INCOMING_KEYS = ['id', 'device_id', 'phone', 'message', 'sim_slot', 'received_at', 'created_at'];

interface Received {
  id: string;
  phone: string;
  message: string;
  received_at: string;
  sim_slot?: number;
}

describe('device channel: incoming SMS', () => {
  const fx = useGateway();


  async function phone(owner: Tenant = fx.tenant): Promise<{ id: string; mqtt: RawClient }> {
    const { device, token } = await registerDevice(fx.gateway, owner);
    return { id: device.id, mqtt: await fx.clients.device(device.id, token) };
  }

  async function forwarding(owner: Tenant, deviceId: string, on: boolean): Promise<void> {
    const reply = await owner.api.patch(`/devices/${deviceId}/settings`, { forward_incoming_sms: on });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  }

  /** Forwards an SMS the way the app does (QoS 2: acknowledged once the gateway handled it). */
  async function receive(device: { id: string; mqtt: RawClient }, sms: Partial<Received> = {}): Promise<Received> {
    const message: Received = {
      id: randomUUID(),
      phone: '+79005550101',
      message: `hello ${randomUUID().slice(0, 8)}`,
      received_at: new Date().toISOString(),
      sim_slot: 0,
      ...sms,
    };
    await device.mqtt.publish(topic(device.id, 'incoming'), JSON.stringify(message), { qos: 2 });
    return message;
  }

  const storedRows = (accountId: string) => incomingRowsOf(fx, accountId);

  describe('when forward_incoming_sms is off', () => {
    it('then a forwarded SMS is not stored and is counted as rejected (forwarding_off)', async () => {
      const device = await phone();
      await forwarding(fx.tenant, device.id, false);
      const counted = fx.gateway.services.metrics.value(REJECTED, { reason: 'forwarding_off' });
      await receive(device);
      expect(fx.gateway.services.metrics.value(REJECTED, { reason: 'forwarding_off' })).to.equal(counted + 1);
      expect(await storedRows(fx.tenant.accountId)).to.deep.equal([]);
      expect((await fx.tenant.api.get('/incoming')).body).to.deep.equal({ data: [], next_cursor: null });
      expect(device.mqtt.closed).to.equal(false);
    });

    it('then it is not stored either after forwarding was switched on and off again', async () => {
      const device = await phone();
      await forwarding(fx.tenant, device.id, true);
      await forwarding(fx.tenant, device.id, false);
      await receive(device);
      expect(await storedRows(fx.tenant.accountId)).to.deep.equal([]);
    });
  });

  describe('when forward_incoming_sms is switched on with PATCH settings', () => {
    it('then a forwarded SMS is stored and GET /incoming shows it as the device reported it', async () => {
      const device = await phone();
      await forwarding(fx.tenant, device.id, false);
      await receive(device);
      await forwarding(fx.tenant, device.id, true);
      const sms = await receive(device, { phone: '+79005550199', message: 'Your code is 1234', sim_slot: 1, received_at: '2026-03-01T09:59:00.000Z' });
      const reply = await fx.tenant.api.get('/incoming');
      expect(reply.status).to.equal(200);
      expect(reply.body.next_cursor).to.equal(null);
      expect(reply.body.data).to.have.length(1);
      const [stored] = reply.body.data;
      expect(Object.keys(stored)).to.have.members(INCOMING_KEYS);
      expect(stored.id).to.match(UUID);
      expect(stored).to.include({ device_id: device.id, phone: '+79005550199', message: 'Your code is 1234', sim_slot: 1, received_at: '2026-03-01T09:59:00.000Z' });
      expectIsoTimestamp(stored.created_at, 'created_at');
      expect(sms.id, 'the device\'s own id is not the API id').to.not.equal(stored.id);
    });

    it('then an SMS of 10,000 characters is stored whole whatever its script (20 KB of UTF-8, over the old 16 KiB cap)', async () => {
      const device = await phone();
      await forwarding(fx.tenant, device.id, true);
      const text = 'я'.repeat(5_000) + '😀'.repeat(2_500);
      expect(text.length).to.equal(10_000);
      await receive(device, { message: text });
      const reply = await fx.tenant.api.get('/incoming');
      expect(reply.body.data).to.have.length(1);
      expect(reply.body.data[0].message).to.equal(text);
      expect(device.mqtt.closed).to.equal(false);
    });

    it('then an SMS without sim_slot is stored with sim_slot null', async () => {
      const device = await phone();
      await forwarding(fx.tenant, device.id, true);
      await receive(device, { sim_slot: undefined });
      const reply = await fx.tenant.api.get('/incoming');
      expect(reply.body.data.map((row: { sim_slot: unknown }) => row.sim_slot)).to.deep.equal([null]);
    });

    it('then the same device message id sent twice is stored once', async () => {
      const device = await phone();
      await forwarding(fx.tenant, device.id, true);
      const sms = await receive(device);
      await receive(device, sms);
      await receive(device, { ...sms, message: 'a changed text under the same id' });
      expect(await storedRows(fx.tenant.accountId)).to.have.length(1);
      const reply = await fx.tenant.api.get('/incoming');
      expect(reply.body.data.map((row: { message: string }) => row.message)).to.deep.equal([sms.message]);
    });

    it('then two devices may use the same message id, each stored for its own device', async () => {
      const first = await phone();
      const second = await phone();
      await forwarding(fx.tenant, first.id, true);
      await forwarding(fx.tenant, second.id, true);
      const sms = await receive(first);
      await receive(second, { ...sms, received_at: new Date().toISOString() });
      const reply = await fx.tenant.api.get('/incoming');
      expect(reply.body.data.map((row: { device_id: string }) => row.device_id)).to.have.members([first.id, second.id]);
    });
  });

  describe('when the account has more received SMS than a page holds', () => {
    it('then GET /incoming pages them newest first with limit and cursor', async () => {
      const device = await phone();
      await forwarding(fx.tenant, device.id, true);
      const sent: string[] = [];
      for (let i = 0; i < 5; i++) sent.push((await receive(device, { message: `m${i}` })).message);
      // Stored in the order received; stamped a minute apart so that newest first is unambiguous.
      for (let i = 0; i < 5; i++) {
        await stampIncoming(fx, fx.tenant.accountId, `m${i}`, new Date(T0 + i * 60_000));
      }
      const messages: string[] = [];
      let cursor: string | null = null;
      const pageSizes: number[] = [];
      do {
        const reply: { status: number; body: any } = await fx.tenant.api.get(`/incoming?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        pageSizes.push(reply.body.data.length);
        messages.push(...reply.body.data.map((row: { message: string }) => row.message));
        cursor = reply.body.next_cursor;
      } while (cursor !== null && pageSizes.length < 10);
      expect(pageSizes).to.deep.equal([2, 2, 1]);
      expect(messages).to.deep.equal([...sent].reverse());
    });

    it('then device_id narrows the list to one device', async () => {
      const first = await phone();
      const second = await phone();
      await forwarding(fx.tenant, first.id, true);
      await forwarding(fx.tenant, second.id, true);
      await receive(first, { message: 'to first' });
      await receive(second, { message: 'to second' });
      const reply = await fx.tenant.api.get(`/incoming?device_id=${second.id}`);
      expect(reply.body.data.map((row: { message: string }) => row.message)).to.deep.equal(['to second']);
    });
  });

  describe('when GET /incoming is called with a key without sms:read', () => {
    it('then it is 403 forbidden', async () => {
      const device = await phone();
      await forwarding(fx.tenant, device.id, true);
      await receive(device);
      const writer = await fx.keyWith(['sms:send', 'devices:read', 'devices:settings']);
      expectError(await writer.get('/incoming'), 403, 'forbidden');
      const reader = await fx.keyWith(['sms:read']);
      expect((await reader.get('/incoming')).body.data).to.have.length(1);
    });
  });

  describe('when another account reads GET /incoming', () => {
    it('then it never sees this account\'s received SMS, not even by naming the device', async () => {
      const device = await phone();
      await forwarding(fx.tenant, device.id, true);
      await receive(device);
      const other = await fx.newTenant();
      expect((await other.api.get('/incoming')).body).to.deep.equal({ data: [], next_cursor: null });
      const named = await other.api.get(`/incoming?device_id=${device.id}`);
      expect(named.body?.data ?? [], JSON.stringify(named.body)).to.deep.equal([]);
      expect((await fx.tenant.api.get('/incoming')).body.data).to.have.length(1);
    });
  });
});
