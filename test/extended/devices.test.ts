// The device endpoints of the Extended API beside PATCH settings: GET /devices (list, paged),
// GET /devices/{id}, device registration and deletion, with the device object, is_online
// (connected and heard from within DEVICE_OFFLINE_AFTER), the devices:read / devices:write
// permissions and tenancy.
import { expect } from 'chai';
import { PERMISSIONS, type Permission } from '../../src/modules/api-keys/permissions.ts';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import { registerDevice, type Tenant } from '../support/tenant.ts';
import { DEFAULT_PACING, detailFields, expectDevice, expectError, expectSms, MALFORMED_IDS, UNKNOWN_ID, UUID } from '../support/expectations.ts';
import { nextTask, takeTasks, tasksOf, topic, type RawClient } from '../support/mqtt.ts';
import { updateSms, deviceRow, updateDevices } from '../support/test-data.ts';

const PHONE = '+79161234567';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const allBut = (permission: Permission) => PERMISSIONS.filter((p) => p !== permission);
/** The queue of a device with no work: nothing in flight, waiting or sent, nothing blocking it. */
const IDLE_QUEUE = { in_flight: 0, waiting: 0, sent_last_minute: 0, sent_last_hour: 0, sent_last_day: 0, blocked_by: null, paused_sims: [] };

describe('/api/ext/v1/devices', () => {
  const fx = useGateway();


  /** A registered device connected over raw MQTT that takes tasks and reports only what the test sends. */
  async function silentPhone(name = 'silent'): Promise<{ id: string; mqtt: RawClient }> {
    const { device, token } = await fx.registerDevice(name);
    const mqtt = await fx.clients.device(device.id, token);
    await takeTasks(mqtt, device.id);
    return { id: device.id, mqtt };
  }

  /** Creates an SMS without device_id and waits until `phone` has claimed it (its task arrived). */
  async function claimedBy(phone: { id: string; mqtt: RawClient }, message: string): Promise<any> {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    // Pull: the SMS is stored unassigned, and the ready device claims it right after.
    expect(created.body.device_id).to.equal(null);
    await nextTask(phone.mqtt, phone.id, created.body.id);
    const read = await fx.tenant.api.get(`/sms/${created.body.id}`);
    expect(read.body.device_id, 'claimed by the ready device').to.equal(phone.id);
    return read.body;
  }

  /** Registers devices named d0, d1, ... stamped so that the last one is the newest. */
  async function devicesInOrder(count: number, owner: Tenant = fx.tenant): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { device } = await registerDevice(fx.gateway, owner, `d${i}`);
      await updateDevices(fx, device.id, { created_at: new Date(T0 + i * 60_000) });
      ids.push(device.id);
    }
    return ids;
  }

  async function walk(limit: number, owner: Tenant = fx.tenant): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pages = 1; ; pages++) {
      const reply: { status: number; body: any } = await owner.api.get(
        `/devices?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      ids.push(...reply.body.data.map((device: { id: string }) => device.id));
      cursor = reply.body.next_cursor;
      if (cursor === null) return ids;
      expect(pages, 'the walk ends').to.be.below(100);
    }
  }

  describe('GET /devices', () => {
    describe('when the account has devices', () => {
      it('then it answers {data, next_cursor} with device objects, newest first', async () => {
        const ids = await devicesInOrder(3);
        const reply = await fx.tenant.api.get('/devices');
        expect(reply.status).to.equal(200);
        expect(reply.body).to.have.all.keys('data', 'next_cursor');
        expect(reply.body.next_cursor).to.equal(null);
        for (const device of reply.body.data) expectDevice(device);
        expect(reply.body.data.map((device: { id: string }) => device.id)).to.deep.equal([...ids].reverse());
        expect(reply.body.data[2]).to.include({ name: 'd0', name_custom: 'd0' });
      });

      it('then an account without devices gets an empty last page', async () => {
        expect((await fx.tenant.api.get('/devices')).body).to.deep.equal({ data: [], next_cursor: null });
      });

      it('then the settings shown are the ones last set', async () => {
        const [id] = await devicesInOrder(1);
        await fx.tenant.api.patch(`/devices/${id}/settings`, { selected_sim: 1, name_custom: 'Shop' });
        const reply = await fx.tenant.api.get('/devices');
        expect(reply.body.data[0]).to.include({ id, selected_sim: 1, name_custom: 'Shop' });
      });
    });

    describe('when paged with limit and cursor', () => {
      it('then without limit a page holds 50 devices', async () => {
        for (let i = 0; i < 51; i++) await fx.registerDevice(`d${i}`);
        const first = await fx.tenant.api.get('/devices');
        expect(first.body.data).to.have.length(50);
        expect(first.body.next_cursor).to.be.a('string').and.not.empty;
        const second = await fx.tenant.api.get(`/devices?cursor=${encodeURIComponent(first.body.next_cursor)}`);
        expect(second.body.data).to.have.length(1);
        expect(second.body.next_cursor).to.equal(null);
      });

      it('then following next_cursor visits every device once, in order', async () => {
        const ids = await devicesInOrder(5);
        // Three devices created in the same instant: the id decides their order, and none is lost.
        await updateDevices(fx, [ids[1]!, ids[2]!], { created_at: new Date(T0) });
        const tied = [ids[0]!, ids[1]!, ids[2]!].sort((a, b) => (a < b ? 1 : -1));
        const expected = [ids[4], ids[3], ...tied];
        for (const limit of [1, 2, 3, 5, 100]) {
          expect(await walk(limit), `limit ${limit}`).to.deep.equal(expected);
        }
      });

      for (const limit of ['0', '101', '-5', 'x']) {
        it(`then limit "${limit}" is a 400 naming limit`, async () => {
          const reply = await fx.tenant.api.get(`/devices?limit=${limit}`);
          expectError(reply, 400, 'validation_failed');
          expect(detailFields(reply)).to.include('limit');
        });
      }

      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      for (const [name, cursor] of [
        ['plain text', 'garbage'],
        ['base64 of a number', encode(42)],
        ['an id that is 36 dashes', encode(['2026-03-01T10:00:00.000Z', '-'.repeat(36)])],
      ]) {
        it(`then a cursor of ${name} is a 400 naming cursor`, async () => {
          await fx.registerDevice();
          const reply = await fx.tenant.api.get(`/devices?cursor=${encodeURIComponent(cursor!)}`);
          expectError(reply, 400, 'validation_failed');
          expect(detailFields(reply)).to.include('cursor');
        });
      }

      it('then an unknown query parameter is ignored, as on every GET (a cache-buster, say)', async () => {
        const reply = await fx.tenant.api.get('/devices?online=true');
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      });
    });

    describe('when another account has devices', () => {
      it('then they are never listed', async () => {
        const other = await fx.newTenant();
        const theirs = await devicesInOrder(3, other);
        const mine = await devicesInOrder(2);
        expect(await walk(1)).to.have.members(mine);
        expect(await walk(1, other)).to.have.members(theirs);
      });
    });

    describe('when a device was deleted', () => {
      it('then it is no longer listed', async () => {
        const [kept, gone] = await devicesInOrder(2);
        expect((await fx.tenant.api.delete(`/devices/${gone}`)).status).to.equal(204);
        expect(await walk(1)).to.deep.equal([kept]);
      });
    });

    describe('when the key lacks devices:read', () => {
      it('then it answers 403 forbidden', async () => {
        const key = await fx.keyWith(allBut('devices:read'));
        expectError(await key.get('/devices'), 403, 'forbidden');
      });
    });
  });

  describe('GET /devices/{id}', () => {
    it('when the device is the account\'s, then it answers 200 with the device object and its queue', async () => {
      const { device } = await fx.registerDevice('Galaxy');
      const reply = await fx.tenant.api.get(`/devices/${device.id}`);
      expect(reply.status).to.equal(200);
      expectDevice(reply.body, { queue: true });
      expect(reply.body).to.include({ id: device.id, name: 'Galaxy', name_custom: 'Galaxy', is_online: false });
      expect(reply.body.created_at).to.equal(device.created_at.toISOString());
      // A new device is paced by the defaults and has no work yet.
      expect(reply.body).to.deep.include(DEFAULT_PACING);
      expect(reply.body.queue).to.deep.equal(IDLE_QUEUE);
    });

    it('when a device holds tasks or has SMS waiting for it, then its queue counts them', async () => {
      const phone = await silentPhone();
      await claimedBy(phone, 'in flight 1');
      await claimedBy(phone, 'in flight 2');
      // An SMS named for a device that is offline waits in that device's queue.
      const waiting = (await fx.registerDevice('idle')).device;
      await fx.tenant.api.post('/sms', { phone: PHONE, message: 'waits', device_id: waiting.id });

      const reply = await fx.tenant.api.get(`/devices/${phone.id}`);
      expectDevice(reply.body, { queue: true });
      expect(reply.body.queue).to.deep.equal({ in_flight: 2, waiting: 0, sent_last_minute: 2, sent_last_hour: 2, sent_last_day: 2, blocked_by: null, paused_sims: [] });
      // An offline device has the SMS named for it waiting; nothing was handed to it.
      const idle = await fx.tenant.api.get(`/devices/${waiting.id}`);
      expect(idle.body.queue).to.deep.equal({ ...IDLE_QUEUE, waiting: 1 });
    });

    it('when the device may not send, then its queue says it is blocked by cannot_send', async () => {
      const { device } = await fx.registerDevice();
      await fx.tenant.api.patch(`/devices/${device.id}/settings`, { can_send_sms: false });
      expect((await fx.tenant.api.get(`/devices/${device.id}`)).body.queue).to.deep.equal({ ...IDLE_QUEUE, blocked_by: 'cannot_send' });
    });

    it('when the device does not exist, then it answers 404 device_not_found', async () => {
      expectError(await fx.tenant.api.get(`/devices/${UNKNOWN_ID}`), 404, 'device_not_found');
    });

    it("when the device is another account's, then it answers 404 device_not_found", async () => {
      const other = await fx.newTenant();
      const { device } = await registerDevice(fx.gateway, other);
      expectError(await fx.tenant.api.get(`/devices/${device.id}`), 404, 'device_not_found');
      expect((await other.api.get(`/devices/${device.id}`)).status).to.equal(200);
    });

    for (const id of MALFORMED_IDS) {
      it(`when the id is "${id}", then it answers 400 invalid_id`, async () => {
        const reply = await fx.tenant.api.get(`/devices/${encodeURIComponent(id)}`);
        expectError(reply, 400, 'invalid_id');
        expect(detailFields(reply)).to.include('id');
      });
    }

    it('when the key lacks devices:read, then it answers 403 forbidden', async () => {
      const { device } = await fx.registerDevice();
      const key = await fx.keyWith(allBut('devices:read'));
      expectError(await key.get(`/devices/${device.id}`), 403, 'forbidden');
    });
  });

  describe('is_online (connected and heard from within DEVICE_OFFLINE_AFTER)', () => {
    it('when the device becomes active, then it is online; when it disconnects, then it is offline', async () => {
      const { device } = await fx.registerDevice();
      const onlineNow = async () => {
        const one = await fx.tenant.api.get(`/devices/${device.id}`);
        const listed = (await fx.tenant.api.get('/devices')).body.data.find((d: { id: string }) => d.id === device.id);
        expect(listed.is_online, 'the list agrees').to.equal(one.body.is_online);
        return one.body.is_online;
      };
      expect(await onlineNow()).to.equal(false);
      fx.gateway.services.presence.markActive(device.id, fx.tenant.accountId);
      expect(await onlineNow()).to.equal(true);
      fx.gateway.services.presence.markDisconnected(device.id);
      expect(await onlineNow()).to.equal(false);
    });

    it('when the last activity is more than 5 minutes old, then the device is offline', async () => {
      const { device: stale } = await fx.registerDevice('stale');
      const { device: recent } = await fx.registerDevice('recent');
      fx.gateway.services.presence.markActive(stale.id, fx.tenant.accountId, Date.now() - 5 * 60_000 - 1_000);
      fx.gateway.services.presence.markActive(recent.id, fx.tenant.accountId, Date.now() - 4 * 60_000);
      expect((await fx.tenant.api.get(`/devices/${stale.id}`)).body.is_online).to.equal(false);
      expect((await fx.tenant.api.get(`/devices/${recent.id}`)).body.is_online).to.equal(true);
    });
  });

  describe('last_seen_at', () => {
    it('when a device has never reported, then it is null; after its heartbeat, then it is the time of that report', async () => {
      const registered = await fx.tenant.api.post('/devices', { name: 'silent phone' });
      expect(registered.body.device.last_seen_at).to.equal(null);
      const before = Date.now();
      const phone = await fx.connectDevice();
      await phone.heartbeat();
      // Reports are written in batches: the time appears once the batch commits.
      const seen = await eventually('last_seen_at set', async () => (await fx.tenant.api.get(`/devices/${phone.id}`)).body.last_seen_at as string | null ?? undefined);
      expect(Date.parse(seen)).to.be.within(before - 1_000, Date.now() + 1_000);
    });
  });

  describe('POST /devices', () => {
    it('when the name is valid, then it answers 201 with the device and its credentials', async () => {
      const reply = await fx.tenant.api.post('/devices', { name: 'Warehouse phone' });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body).to.have.all.keys('device', 'credentials', 'broker', 'pairing_url', 'install_command');
      // Where the phone connects: the MQTT port it listens on, and MQTT over WebSocket; the
      // host and port it reaches (here the host the request came to), as the pairing URL names them.
      const port = fx.gateway.mqttPort;
      expect(reply.body.broker).to.deep.equal({ mqtt_port: port, websocket_path: '/mqtt', host: '127.0.0.1', port, tls: false, url: `mqtt://127.0.0.1:${port}` });
      expect(reply.body.pairing_url).to.match(new RegExp(`^smsgw://127\\.0\\.0\\.1:${port}\\?v=1&device=${reply.body.device.id}&token=`));
      expectDevice(reply.body.device);
      expect(reply.body.device).to.include({ name: 'Warehouse phone', name_custom: 'Warehouse phone', is_online: false, can_send_sms: true });
      expect(reply.body.credentials).to.have.all.keys('client_id', 'username', 'password');
      expect(reply.body.credentials.client_id).to.equal(reply.body.device.id);
      expect(reply.body.credentials.username).to.equal(reply.body.device.id);
      expect(reply.body.credentials.password).to.be.a('string').with.length.of.at.least(32);

      expect(reply.body.device, 'registered with the default pacing').to.deep.include(DEFAULT_PACING);

      const read = await fx.tenant.api.get(`/devices/${reply.body.device.id}`);
      expect(read.status).to.equal(200);
      // GET /devices/{id} is the same device, with its queue beside it.
      const { queue, ...shown } = read.body;
      expect(shown).to.deep.equal(reply.body.device);
      expect(queue).to.deep.equal(IDLE_QUEUE);
    });

    it('when a device is registered, then its password is not stored in clear', async () => {
      const reply = await fx.tenant.api.post('/devices', { name: 'x' });
      const row = await deviceRow(fx, reply.body.device.id);
      expect(JSON.stringify(row)).not.to.contain(reply.body.credentials.password);
    });

    it('when two devices are registered, then they get different ids and passwords', async () => {
      const a = (await fx.tenant.api.post('/devices', { name: 'same' })).body;
      const b = (await fx.tenant.api.post('/devices', { name: 'same' })).body;
      expect(a.device.id).to.match(UUID).and.not.equal(b.device.id);
      expect(a.credentials.password).not.to.equal(b.credentials.password);
    });

    for (const [name, value] of [
      ['100 Latin characters', 'a'.repeat(100)],
      ['100 emoji with a skin tone', '👍🏽'.repeat(100)],
    ]) {
      it(`when the name is ${name}, then it is accepted`, async () => {
        const reply = await fx.tenant.api.post('/devices', { name: value });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
        expect(reply.body.device.name).to.equal(value);
      });
    }

    const refused: [string, unknown][] = [
      ['missing', {}],
      ['empty', { name: '' }],
      ['only spaces', { name: '   ' }],
      ['101 characters', { name: 'a'.repeat(101) }],
      ['a number', { name: 42 }],
      ['null', { name: null }],
      ['beside an unknown field', { name: 'x', type: 'ios' }],
    ];
    for (const [name, body] of refused) {
      it(`when the name is ${name}, then it answers 400 and registers nothing`, async () => {
        const reply = await fx.tenant.api.post('/devices', body);
        expectError(reply, 400, 'validation_failed');
        expect(reply.body.error.message).to.match(/name|type/);
        expect((await fx.tenant.api.get('/devices')).body.data).to.deep.equal([]);
      });
    }

    it('when the field is unknown, then the 400 names it', async () => {
      const reply = await fx.tenant.api.post('/devices', { name: 'x', type: 'ios' });
      expect(detailFields(reply)).to.include('type');
    });

    it('when the key lacks devices:write, then it answers 403 forbidden and registers nothing', async () => {
      const key = await fx.keyWith(allBut('devices:write'));
      expectError(await key.post('/devices', { name: 'x' }), 403, 'forbidden');
      expect((await fx.tenant.api.get('/devices')).body.data).to.deep.equal([]);
    });
  });

  describe('DELETE /devices/{id}', () => {
    it('when the device is the account\'s, then it answers 204 with no body, and afterwards the device is gone', async () => {
      const { device } = await fx.registerDevice();
      const reply = await fx.tenant.api.delete(`/devices/${device.id}`);
      expect(reply.status).to.equal(204);
      expect(reply.body).to.equal(undefined);
      expectError(await fx.tenant.api.get(`/devices/${device.id}`), 404, 'device_not_found');
      expectError(await fx.tenant.api.patch(`/devices/${device.id}/settings`, { record_calls: true }), 404, 'device_not_found');
      // Deleted by this account: a retry succeeds again (test/extended/repeated-device-delete.test.ts).
      expect((await fx.tenant.api.delete(`/devices/${device.id}`)).status).to.equal(204);
      expectError(await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: device.id }), 404, 'device_not_found');
    });

    it('when the device was online, then it is no longer chosen for new SMS', async () => {
      const phone = await silentPhone('doomed');
      const before = await claimedBy(phone, 'before');
      await fx.tenant.api.delete(`/devices/${phone.id}`);
      await phone.mqtt.whenClosed();
      expect(fx.gateway.services.presence.isOnline(phone.id)).to.equal(false);
      expect(fx.gateway.channel.isReady(phone.id)).to.equal(false);

      const after = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'after' });
      expect(after.body.device_id).to.equal(null);
      // A device that comes online next takes both: the deleted one took nothing more.
      const heir = await silentPhone('heir');
      await nextTask(heir.mqtt, heir.id, after.body.id);
      await nextTask(heir.mqtt, heir.id, before.id);
      expect((await fx.tenant.api.get(`/sms/${after.body.id}`)).body.device_id).to.equal(heir.id);
      expect(tasksOf(phone.mqtt, phone.id).map((task) => task.sms_id), 'the deleted device got only its first task').to.deep.equal([before.id]);
    });

    it('when it had a task its phone had not acknowledged and the client did not name it, then that SMS goes back to the pool, still pending', async () => {
      const phone = await silentPhone();
      const sms = await claimedBy(phone, 'to anyone');

      expect((await fx.tenant.api.delete(`/devices/${phone.id}`)).status).to.equal(204);
      const after = await fx.tenant.api.get(`/sms/${sms.id}`);
      expectSms(after.body, ['way_in', 'history']);
      expect(after.body).to.include({ device_id: null, status: 'pending', reason: null });
      // Unassigned, not failed: the next device of the account may take it.
      expect(after.body.history.map((entry: { internal_status: string }) => entry.internal_status)).to.deep.equal(['pending']);
    });

    it('when it had a task its phone had acknowledged (processing), then that SMS ends failed_send, reason device_deleted: never back in the pool', async () => {
      const phone = await silentPhone();
      const sms = await claimedBy(phone, 'on the air');
      await phone.mqtt.publish(topic(phone.id, 'status'), JSON.stringify({ sms_id: sms.id, status: 'processing' }), { qos: 2 });

      expect((await fx.tenant.api.delete(`/devices/${phone.id}`)).status).to.equal(204);
      const after = await fx.tenant.api.get(`/sms/${sms.id}`);
      // Taken is taken: the phone may already have sent it, so it is never handed out again; and
      // the phone can no longer report it, so it ends rather than stay processing for ever.
      expect(after.body).to.include({ device_id: phone.id, status: 'failed_send', reason: 'device_deleted' });
      expect(after.body.history.map((entry: { internal_status: string }) => entry.internal_status)).to.deep.equal(['pending', 'processing', 'failed_send']);
    });

    it('when it had a pending SMS the client named it for, then that SMS fails (failed_send, reason device_deleted)', async () => {
      const { device } = await fx.registerDevice();
      const sms = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'only via this one', device_id: device.id })).body;
      expect(sms.device_id, 'an SMS created with device_id answers that device').to.equal(device.id);

      expect((await fx.tenant.api.delete(`/devices/${device.id}`)).status).to.equal(204);
      const after = await fx.tenant.api.get(`/sms/${sms.id}`);
      expect(after.body).to.include({ status: 'failed_send', reason: 'device_deleted', device_id: device.id });
      const last = after.body.history[after.body.history.length - 1];
      expect(last).to.include({ status: 'failed_send', source: 'system', reason: 'device_deleted' });
    });

    it('when it had SMS already sent, then they end failed_delivery (reason device_deleted), keeping their device and earlier history', async () => {
      const { device } = await fx.registerDevice();
      const sms = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'done', device_id: device.id })).body;
      await updateSms(fx, sms.id, { status: 'sent' });
      const before = await fx.tenant.api.get(`/sms/${sms.id}`);

      await fx.tenant.api.delete(`/devices/${device.id}`);
      const after = await fx.tenant.api.get(`/sms/${sms.id}`);
      expect(after.body).to.include({ status: 'failed_delivery', reason: 'device_deleted', device_id: device.id });
      expect(after.body.history.slice(0, -1)).to.deep.equal(before.body.history);
      expect(after.body.history.at(-1)).to.include({ status: 'failed_delivery', source: 'system', reason: 'device_deleted' });
    });

    it("when it had the other account's SMS nowhere near it, then their SMS are untouched", async () => {
      const other = await fx.newTenant();
      const theirDevice = (await registerDevice(fx.gateway, other)).device;
      const theirSms = (await other.api.post('/sms', { phone: PHONE, message: 'x', device_id: theirDevice.id })).body;
      const { device } = await fx.registerDevice();
      await fx.tenant.api.delete(`/devices/${device.id}`);
      expect((await other.api.get(`/sms/${theirSms.id}`)).body).to.include({ status: 'pending', device_id: theirDevice.id });
    });

    it('when the device does not exist, then it answers 404 device_not_found', async () => {
      expectError(await fx.tenant.api.delete(`/devices/${UNKNOWN_ID}`), 404, 'device_not_found');
    });

    it("when the device is another account's, then it answers 404 and the device stays", async () => {
      const other = await fx.newTenant();
      const { device } = await registerDevice(fx.gateway, other);
      expectError(await fx.tenant.api.delete(`/devices/${device.id}`), 404, 'device_not_found');
      expect((await other.api.get(`/devices/${device.id}`)).status).to.equal(200);
    });

    for (const id of MALFORMED_IDS) {
      it(`when the id is "${id}", then it answers 400 invalid_id`, async () => {
        expectError(await fx.tenant.api.delete(`/devices/${encodeURIComponent(id)}`), 400, 'invalid_id');
      });
    }

    it('when the key lacks devices:write, then it answers 403 and the device stays', async () => {
      const { device } = await fx.registerDevice();
      const key = await fx.keyWith(allBut('devices:write'));
      expectError(await key.delete(`/devices/${device.id}`), 403, 'forbidden');
      expect((await fx.tenant.api.get(`/devices/${device.id}`)).status).to.equal(200);
    });
  });
});
