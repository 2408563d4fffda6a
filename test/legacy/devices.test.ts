// The legacy device endpoints: POST /devices/get/info with device_id or its alias id, in the
// object-id and UUID forms; POST /devices/edit (is_active is can_send_sms); POST /devices/del
// (credentials revoked, MQTT session closed; tasks no phone acknowledged yet fail when the
// client named the device and go back to the pool otherwise, while acknowledged ones stay with
// the phone).
import { expect } from 'chai';
import { simulatedNumber } from '../../src/simulator/sim-numbers.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { useGateway } from '../support/use-gateway.ts';
import { ApiClient, registerDevice, type Reply, type Tenant } from '../support/tenant.ts';
import { nextDomainEvent, nextEvent } from '../support/devices.ts';
import { detailFields, expectError } from '../support/expectations.ts';
import { nextTask, takeTasks, type RawClient } from '../support/mqtt.ts';
import {
  allBut,
  BATTERY_NOT_REPORTED,
  deviceRow,
  driveTo,
  expectLegacyDevice,
  heartbeatRecorded,
  LEGACY_DEVICE_KEYS,
  legacyGet,
  legacyKeyWith,
  legacySend,
  MALFORMED_IDS,
  NEVER_ONLINE,
  simulatedFor,
  UNKNOWN_OBJECT_ID,
  UNKNOWN_UUID,
  uuidOfMessage,
} from '../support/legacy.ts';

type DeviceIds = { uuid: string; objectId: string };

/** The four ways a client may name a device in a legacy body. */
const REFERENCES: [string, (ids: DeviceIds) => Record<string, string>][] = [
  ['device_id as object id', (ids) => ({ device_id: ids.objectId })],
  ['device_id as UUID', (ids) => ({ device_id: ids.uuid })],
  ['id as object id', (ids) => ({ id: ids.objectId })],
  ['id as UUID', (ids) => ({ id: ids.uuid })],
];

describe('legacy API: devices', () => {
  const fx = useGateway();
  const phones: SimulatedDevice[] = [];

  afterEach(async () => {
    await Promise.all(phones.splice(0).map((phone) => phone.stop()));
    await fx.clients.endAll();
  });

  /** Registers a device of `owner` (never connected). */
  async function device(owner: Tenant = fx.tenant, name = 'test-phone'): Promise<DeviceIds & { token: string }> {
    const { device: registered, token } = await registerDevice(fx.gateway, owner, name);
    const row = await deviceRow(fx.gateway, owner, registered.id);
    return { uuid: registered.id, objectId: row.object_id, token };
  }

  const info = (body: unknown, client: ApiClient = fx.tenant.root) => client.post('/devices/get/info', body);

  async function infoOk(body: unknown): Promise<any> {
    const reply = await info(body);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expectLegacyDevice(reply.body);
    return reply.body;
  }

  const extended = (ids: DeviceIds) => fx.tenant.api.get(`/devices/${ids.uuid}`);

  /** Sends an SMS with /sms/send and waits until the raw device `holder` has its task; resolves with both ids. */
  async function sendTaken(holder: { ids: DeviceIds; mqtt: RawClient }, message: string, fields: Record<string, unknown> = {}) {
    const objectId = await legacySend(fx.tenant, { message, ...fields });
    const uuid = await uuidOfMessage(fx.tenant, message);
    await nextTask(holder.mqtt, holder.ids.uuid, uuid);
    return { objectId, uuid };
  }

  /** A 204 with no body. */
  function expectNoContent(reply: Reply): void {
    expect(reply.status, JSON.stringify(reply.body)).to.equal(204);
    expect(reply.body).to.equal(undefined);
  }

  describe('when POST /devices/get/info reads a device that has never connected', () => {
    it('then it answers 200 with exactly the fields of the legacy device object: battery -1 and last online the epoch (not reported yet), no SIMs yet', async () => {
      const ids = await device(fx.tenant, 'kitchen phone');
      const reply = await info({ device_id: ids.objectId });
      expect(reply.status).to.equal(200);
      expect(Object.keys(reply.body)).to.have.members([...LEGACY_DEVICE_KEYS]);
      expectLegacyDevice(reply.body);
      expect(reply.body).to.deep.equal({
        device_id: ids.objectId,
        device_battery_state: BATTERY_NOT_REPORTED,
        device_name: 'kitchen phone',
        is_active: true,
        is_charging: false,
        last_online_date: NEVER_ONLINE,
        device_name_type: 'android',
        low_battery_alert: false,
        to_sim: -2,
        sim_list: [],
      });
    });

    it('then device_id and its alias id, each as object id or UUID, read the same device', async () => {
      const ids = await device();
      await device(fx.tenant, 'another one');
      const bodies = [];
      for (const [, reference] of REFERENCES) bodies.push(await infoOk(reference(ids)));
      for (const body of bodies) expect(body).to.deep.equal(bodies[0]);
      expect(bodies[0].device_id).to.equal(ids.objectId);
    });

    it('then an upper-case object id reads the device too', async () => {
      const ids = await device();
      expect((await infoOk({ device_id: ids.objectId.toUpperCase() })).device_id).to.equal(ids.objectId);
    });
  });

  describe('when the device has sent a heartbeat', () => {
    it('then battery, charging, SIM list, name, type and last online time come from it', async () => {
      const ids = await device();
      const phone = simulatedFor(fx.gateway, { id: ids.uuid }, ids.token, {
        name: 'Pixel 8',
        simCards: [
          { index: 0, name_operator: 'Beeline' },
          { index: 1, name_operator: 'MTS' },
        ],
      });
      phones.push(phone);
      phone.batteryLevel = 42;
      phone.isCharging = true;
      const recorded = heartbeatRecorded(fx.gateway, ids.uuid);
      const before = Date.now();
      await phone.connect();
      await recorded;
      const after = Date.now();

      const body = await infoOk({ device_id: ids.objectId });
      expect(body).to.deep.include({
        device_battery_state: 42,
        is_charging: true,
        device_name: 'Pixel 8',
        device_name_type: 'android',
        sim_list: [
          { slot_index: 0, display_name: 'Beeline' },
          { slot_index: 1, display_name: 'MTS' },
        ],
      });
      expect(body.device_battery_state).to.be.a('number');
      expect(body.last_online_date).to.be.a('string');
      expect(new Date(body.last_online_date).toISOString()).to.equal(body.last_online_date);
      expect(Date.parse(body.last_online_date)).to.be.within(before, after);

      // The Extended API shows the same device.
      const view = (await extended(ids)).body;
      expect(view).to.deep.include({ battery_level: 42, is_charging: true, sim_cards: [
          // A simulated phone reports a number of its own per SIM, which the legacy API does not show.
          { index: 0, name_operator: 'Beeline', phone_number: simulatedNumber(ids.uuid, 0), phone_number_source: 'device' },
          { index: 1, name_operator: 'MTS', phone_number: simulatedNumber(ids.uuid, 1), phone_number_source: 'device' },
        ],
      });
    });

    it('then a later heartbeat replaces the values', async () => {
      const ids = await device();
      const phone = simulatedFor(fx.gateway, { id: ids.uuid }, ids.token, { simCards: [{ index: 0, name_operator: 'Beeline' }] });
      phones.push(phone);
      const first = heartbeatRecorded(fx.gateway, ids.uuid);
      await phone.connect();
      await first;
      const earlier = await infoOk({ id: ids.uuid });
      expect(earlier.device_battery_state).to.equal(87);

      phone.batteryLevel = 15;
      phone.isCharging = false;
      phone.options.simCards = [{ index: 1, name_operator: 'Tele2' }];
      const second = heartbeatRecorded(fx.gateway, ids.uuid);
      await phone.heartbeat();
      await second;
      const later = await infoOk({ id: ids.uuid });
      expect(later).to.deep.include({ device_battery_state: 15, is_charging: false, sim_list: [{ slot_index: 1, display_name: 'Tele2' }] });
      expect(Date.parse(later.last_online_date)).to.be.at.least(Date.parse(earlier.last_online_date));
    });
  });

  describe('when settings change through the Extended API', () => {
    for (const sim of [-2, -1, 0, 1, 2]) {
      it(`then selected_sim ${sim} shows as to_sim ${sim}`, async () => {
        const ids = await device();
        expect((await fx.tenant.api.patch(`/devices/${ids.uuid}/settings`, { selected_sim: sim })).status).to.equal(200);
        expect((await infoOk({ device_id: ids.objectId })).to_sim).to.equal(sim);
      });
    }

    it('then notify_low_battery shows as low_battery_alert and can_send_sms as is_active', async () => {
      const ids = await device();
      await fx.tenant.api.patch(`/devices/${ids.uuid}/settings`, { notify_low_battery: true, can_send_sms: false });
      expect(await infoOk({ device_id: ids.objectId })).to.deep.include({ low_battery_alert: true, is_active: false });
      await fx.tenant.api.patch(`/devices/${ids.uuid}/settings`, { notify_low_battery: false, can_send_sms: true });
      expect(await infoOk({ device_id: ids.objectId })).to.deep.include({ low_battery_alert: false, is_active: true });
    });

    it('then a custom name does not change device_name, the name detected automatically', async () => {
      const ids = await device(fx.tenant, 'system name');
      await fx.tenant.api.patch(`/devices/${ids.uuid}/settings`, { name_custom: 'My phone' });
      expect((await infoOk({ device_id: ids.objectId })).device_name).to.equal('system name');
    });
  });

  describe('when POST /devices/get/info cannot name a device', () => {
    for (const [name, body, field] of [
      ['neither device_id nor id', {}, 'device_id'],
      ['device_id ""', { device_id: '' }, 'device_id'],
      ['device_id a number', { device_id: 12 }, 'device_id'],
      ['device_id null', { device_id: null }, 'device_id'],
      ['an unknown field', { device_id: UNKNOWN_OBJECT_ID, name: 'x' }, 'name'],
    ] as const) {
      it(`then ${name} is a 400 naming ${field}`, async () => {
        const reply = await info(body);
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include(field);
      });
    }

    it('then id "" is a 400', async () => {
      expectError(await info({ id: '' }), 400);
    });

    for (const id of MALFORMED_IDS) {
      it(`then the malformed ${JSON.stringify(id)} is a 400 invalid_id naming the field it came in`, async () => {
        const asDeviceId = await info({ device_id: id });
        expectError(asDeviceId, 400, 'invalid_id');
        expect(detailFields(asDeviceId)).to.deep.equal(['device_id']);
        const asId = await info({ id });
        expectError(asId, 400, 'invalid_id');
        expect(detailFields(asId)).to.deep.equal(['id']);
      });
    }

    for (const [form, id] of [
      ['object id', UNKNOWN_OBJECT_ID],
      ['UUID', UNKNOWN_UUID],
    ] as const) {
      it(`then an unknown ${form} is a 404 device_not_found, as device_id or id`, async () => {
        expectError(await info({ device_id: id }), 404, 'device_not_found');
        expectError(await info({ id }), 404, 'device_not_found');
      });
    }

    for (const [label, reference] of REFERENCES) {
      it(`then another account's device (${label}) is a 404 device_not_found`, async () => {
        const other = await fx.newTenant();
        const theirs = await device(other);
        expectError(await info(reference(theirs)), 404, 'device_not_found');
      });
    }

    it('then malformed JSON is a 400 and text/plain a 415', async () => {
      expectError(await info('{"device_id": '), 400, 'invalid_json');
      expectError(
        await fx.tenant.root.request('POST', '/devices/get/info', JSON.stringify({ device_id: UNKNOWN_OBJECT_ID }), { 'content-type': 'text/plain' }),
        415,
        'unsupported_media_type',
      );
    });
  });

  describe('when the caller may not read devices', () => {
    it('then a key without devices:read is a 403 forbidden', async () => {
      const ids = await device();
      const reply = await info({ device_id: ids.objectId }, await legacyKeyWith(fx.gateway, fx.tenant, allBut('devices:read')));
      expectError(reply, 403, 'forbidden');
      expect(reply.body.error.message).to.contain('devices:read');
    });

    it('then a key with only devices:read reads', async () => {
      const ids = await device();
      const reply = await info({ device_id: ids.objectId }, await legacyKeyWith(fx.gateway, fx.tenant, ['devices:read']));
      expect(reply.status).to.equal(200);
    });

    it('then no key is a 401 unauthorized', async () => {
      const ids = await device();
      expectError(await info({ device_id: ids.objectId }, new ApiClient(fx.tenant.root.baseUrl, undefined)), 401, 'unauthorized');
    });

    it('then GET /devices/get/info is a 405 method_not_allowed', async () => {
      expectError(await fx.tenant.root.get('/devices/get/info'), 405, 'method_not_allowed');
    });
  });

  describe('when POST /devices/edit sets is_active', () => {
    for (const [label, reference] of REFERENCES) {
      it(`then with ${label}, is_active false answers 204 and the Extended API shows can_send_sms false; true turns it back`, async () => {
        const ids = await device();
        expectNoContent(await fx.tenant.root.post('/devices/edit', { ...reference(ids), is_active: false }));
        expect((await extended(ids)).body.can_send_sms).to.equal(false);
        expect((await infoOk({ device_id: ids.objectId })).is_active).to.equal(false);

        expectNoContent(await fx.tenant.root.post('/devices/edit', { ...reference(ids), is_active: true }));
        expect((await extended(ids)).body.can_send_sms).to.equal(true);
        expect((await infoOk({ device_id: ids.objectId })).is_active).to.equal(true);
      });
    }

    it('then is_active null is taken as not given, as generated clients send an unset field: 204 and nothing changes', async () => {
      const ids = await device();
      const before = (await extended(ids)).body;
      expectNoContent(await fx.tenant.root.post('/devices/edit', { device_id: ids.objectId, is_active: null }));
      expect((await extended(ids)).body.can_send_sms).to.equal(before.can_send_sms);
    });

    it('then without is_active it answers 204 and nothing changes', async () => {
      const ids = await device();
      for (const active of [false, true]) {
        expectNoContent(await fx.tenant.root.post('/devices/edit', { device_id: ids.objectId, is_active: active }));
        const before = (await extended(ids)).body;
        expectNoContent(await fx.tenant.root.post('/devices/edit', { device_id: ids.objectId }));
        expectNoContent(await fx.tenant.root.post('/devices/edit', { id: ids.uuid }));
        expect((await extended(ids)).body).to.deep.equal(before);
        expect(before.can_send_sms).to.equal(active);
      }
    });

    it('then only can_send_sms changes, no other setting', async () => {
      const ids = await device();
      await fx.tenant.api.patch(`/devices/${ids.uuid}/settings`, {
        selected_sim: 1,
        notify_low_battery: true,
        record_calls: true,
        name_custom: 'Mine',
        send_window: 3,
        limits: { per_minute: 7 },
      });
      const { queue: queueBefore, ...before } = (await extended(ids)).body;
      expectNoContent(await fx.tenant.root.post('/devices/edit', { device_id: ids.objectId, is_active: false }));
      const { queue: queueAfter, ...after } = (await extended(ids)).body;
      expect({ ...after, can_send_sms: true, updated_at: before.updated_at }).to.deep.equal(before);
      // What changes besides is what follows from it: the device may take nothing now.
      expect(queueBefore.blocked_by).to.equal(null);
      expect(queueAfter).to.deep.equal({ ...queueBefore, blocked_by: 'cannot_send' });
    });

    it('then an inactive device gets no SMS without device_id, and gets the waiting one once active again', async () => {
      const ids = await device();
      const phone = simulatedFor(fx.gateway, { id: ids.uuid }, ids.token);
      phones.push(phone);
      await phone.connect();
      expectNoContent(await fx.tenant.root.post('/devices/edit', { device_id: ids.objectId, is_active: false }));

      const id = await legacySend(fx.tenant, { message: 'waits' });
      const uuid = await uuidOfMessage(fx.tenant, 'waits');
      expect((await fx.tenant.api.get(`/sms/${uuid}`)).body.device_id, 'no device may take it').to.equal(null);
      expectError(await fx.tenant.root.post('/sms/send', { message: 'x', phone_number: '+79161234567', device_id: ids.objectId }), 409, 'device_cannot_send');

      const delivered = nextEvent(phone, 'report', (smsId, status) => smsId === uuid && status === 'delivered');
      expectNoContent(await fx.tenant.root.post('/devices/edit', { device_id: ids.objectId, is_active: true }));
      await delivered;
      expect((await legacyGet(fx.tenant, id)).status).to.equal(4);
    });

    it('then is_active false keeps the unacknowledged SMS the client named waiting for it (status 0), leaves the acknowledged ones with the phone, and gives the others to another device', async () => {
      const ids = await device(fx.tenant, 'muted');
      const mqtt = await fx.clients.device(ids.uuid, ids.token);
      await takeTasks(mqtt, ids.uuid);
      const muted = { ids, mqtt };
      // Named for it and handed to it, not acknowledged yet.
      const named = await sendTaken(muted, 'named', { device_id: ids.objectId });
      // Named for it and acknowledged: the phone may be sending it right now.
      const acknowledged = await sendTaken(muted, 'acknowledged', { device_id: ids.objectId });
      await driveTo(mqtt, ids.uuid, acknowledged.uuid, 'processing');
      const sent = await sendTaken(muted, 'already sent', { device_id: ids.objectId });
      await driveTo(mqtt, ids.uuid, sent.uuid, 'sent');
      // Not named: the gateway handed it to the only device online.
      const pooled = await sendTaken(muted, 'pooled');
      expect((await fx.tenant.api.get(`/sms/${pooled.uuid}`)).body.device_id).to.equal(ids.uuid);

      const other = await device(fx.tenant, 'other');
      const phone = simulatedFor(fx.gateway, { id: other.uuid }, other.token);
      phones.push(phone);
      const delivered = nextEvent(phone, 'report', (smsId, status) => smsId === pooled.uuid && status === 'delivered');
      await phone.connect();

      expectNoContent(await fx.tenant.root.post('/devices/edit', { device_id: ids.objectId, is_active: false }));
      await delivered;
      // Only switched off: it waits for the device to be switched on, nothing failed.
      expect(await legacyGet(fx.tenant, named.objectId)).to.deep.include({ status: 0, message_status: 'waiting', device_id: ids.objectId });
      const waiting = (await fx.tenant.api.get(`/sms/${named.uuid}`)).body;
      expect(waiting.reason).to.equal(null);
      expect(waiting.history.map((entry: { internal_status: string }) => entry.internal_status)).to.deep.equal(['pending']);
      expect(await legacyGet(fx.tenant, acknowledged.objectId), 'acknowledged: still the phone\'s').to.deep.include({ status: 1, device_id: ids.objectId });
      expect((await legacyGet(fx.tenant, sent.objectId)).status, 'already sent: unchanged').to.equal(2);
      expect(await legacyGet(fx.tenant, pooled.objectId)).to.deep.include({ status: 4, device_id: '' });
      expect((await fx.tenant.api.get(`/sms/${pooled.uuid}`)).body.device_id).to.equal(other.uuid);
      expect([...phone.handled.keys()], 'the other device got only the pooled SMS').to.deep.equal([pooled.uuid]);
      // The muted device keeps its connection: it is only no longer allowed to take tasks. It
      // still reports on the SMS it had acknowledged.
      expect(mqtt.closed).to.equal(false);
      await driveTo(mqtt, ids.uuid, acknowledged.uuid, 'delivered');
      expect((await legacyGet(fx.tenant, acknowledged.objectId)).status).to.equal(4);
    });

    for (const [name, body, field] of [
      ['is_active "false"', { is_active: 'false' }, 'is_active'],
      ['is_active 0', { is_active: 0 }, 'is_active'],
      ['an unknown field', { to_sim: 1 }, 'to_sim'],
    ] as const) {
      it(`then ${name} is a 400 naming ${field}, and nothing changes`, async () => {
        const ids = await device();
        const before = (await extended(ids)).body;
        const reply = await fx.tenant.root.post('/devices/edit', { device_id: ids.objectId, ...body });
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include(field);
        expect((await extended(ids)).body).to.deep.equal(before);
      });
    }

    it('then no device reference is a 400 naming device_id', async () => {
      const reply = await fx.tenant.root.post('/devices/edit', { is_active: false });
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.include('device_id');
    });

    for (const id of MALFORMED_IDS) {
      it(`then the malformed device_id ${JSON.stringify(id)} is a 400 invalid_id`, async () => {
        expectError(await fx.tenant.root.post('/devices/edit', { device_id: id, is_active: false }), 400, 'invalid_id');
      });
    }

    it("then an unknown device or another account's is a 404 and the other account's device is unchanged", async () => {
      expectError(await fx.tenant.root.post('/devices/edit', { device_id: UNKNOWN_OBJECT_ID, is_active: false }), 404, 'device_not_found');
      expectError(await fx.tenant.root.post('/devices/edit', { id: UNKNOWN_UUID, is_active: false }), 404, 'device_not_found');
      const other = await fx.newTenant();
      const theirs = await device(other);
      for (const [, reference] of REFERENCES) {
        expectError(await fx.tenant.root.post('/devices/edit', { ...reference(theirs), is_active: false }), 404, 'device_not_found');
      }
      expect((await other.api.get(`/devices/${theirs.uuid}`)).body.can_send_sms).to.equal(true);
    });

    it('then a key without devices:settings is a 403 and nothing changes; a key with only it may edit', async () => {
      const ids = await device();
      const refused = await (await legacyKeyWith(fx.gateway, fx.tenant, allBut('devices:settings'))).post('/devices/edit', { device_id: ids.objectId, is_active: false });
      expectError(refused, 403, 'forbidden');
      expect(refused.body.error.message).to.contain('devices:settings');
      expect((await extended(ids)).body.can_send_sms).to.equal(true);

      const allowed = await legacyKeyWith(fx.gateway, fx.tenant, ['devices:settings']);
      expectNoContent(await allowed.post('/devices/edit', { device_id: ids.objectId, is_active: false }));
      expect((await extended(ids)).body.can_send_sms).to.equal(false);
    });

    it('then no key is a 401 unauthorized', async () => {
      const ids = await device();
      expectError(await new ApiClient(fx.tenant.root.baseUrl, undefined).post('/devices/edit', { device_id: ids.objectId, is_active: false }), 401, 'unauthorized');
      expect((await extended(ids)).body.can_send_sms).to.equal(true);
    });
  });

  describe('when POST /devices/del deletes a device', () => {
    for (const [label, reference] of REFERENCES) {
      it(`then with ${label} it answers 204, and the device is gone from both families`, async () => {
        const ids = await device();
        const kept = await device(fx.tenant, 'kept');
        expectNoContent(await fx.tenant.root.post('/devices/del', reference(ids)));

        for (const [, again] of REFERENCES) expectError(await info(again(ids)), 404, 'device_not_found');
        expectError(await extended(ids), 404, 'device_not_found');
        const listed = await fx.tenant.api.get('/devices?limit=100');
        expect(listed.body.data.map((row: { id: string }) => row.id)).to.deep.equal([kept.uuid]);
        expectError(await fx.tenant.root.post('/devices/edit', { device_id: ids.objectId, is_active: true }), 404, 'device_not_found');
        // Deleted by this account: a retry succeeds again (test/legacy/repeated-deletes.test.ts).
        expectNoContent(await fx.tenant.root.post('/devices/del', reference(ids)));
        expect((await infoOk({ device_id: kept.objectId })).device_id).to.equal(kept.objectId);
      });
    }

    it('then its MQTT connection is closed and its credentials no longer connect', async () => {
      const ids = await device();
      const mqtt = await fx.clients.device(ids.uuid, ids.token);
      expect(fx.gateway.services.presence.isOnline(ids.uuid)).to.equal(true);
      expectNoContent(await fx.tenant.root.post('/devices/del', { device_id: ids.objectId }));
      await mqtt.whenClosed();
      expect(fx.gateway.services.presence.isOnline(ids.uuid)).to.equal(false);
      const refused = await fx.clients.refused({ clientId: ids.uuid, username: ids.uuid, password: ids.token });
      expect(refused.code, 'CONNACK 5, not authorized').to.equal(5);
    });

    it('then a connected simulated phone is disconnected and goes offline', async () => {
      const ids = await device();
      const phone = simulatedFor(fx.gateway, { id: ids.uuid }, ids.token);
      phones.push(phone);
      await phone.connect();
      expect(phone.connected).to.equal(true);
      const client = phone.agent.session.mqttClient!;
      const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
      const offline = nextDomainEvent(fx.gateway.services.events, 'device.offline', (event) => event.deviceId === ids.uuid);

      expectNoContent(await fx.tenant.root.post('/devices/del', { id: ids.objectId }));
      await offline;
      await closed;
      expect(fx.gateway.services.presence.isOnline(ids.uuid)).to.equal(false);
      expect((await fx.tenant.api.get(`/devices/${ids.uuid}`)).status).to.equal(404);
    });

    it('then its unacknowledged SMS fail when the client named it (status 3) and go to another device otherwise; what its phone took ends (3 acknowledged, 5 sent)', async () => {
      const doomed = await device(fx.tenant, 'doomed');
      const mqtt = await fx.clients.device(doomed.uuid, doomed.token);
      await takeTasks(mqtt, doomed.uuid);

      // SMS the client sent to the doomed device by name, handed to it, in every stage.
      const named: Record<string, string> = {};
      for (const stage of ['pending', 'processing', 'sent', 'delivered'] as const) {
        const taken = await sendTaken({ ids: doomed, mqtt }, `named ${stage}`, { device_id: doomed.objectId });
        named[stage] = taken.objectId;
        await driveTo(mqtt, doomed.uuid, taken.uuid, stage);
      }
      // One the gateway gave it because it was the only device online.
      const { objectId: pooled, uuid: pooledUuid } = await sendTaken({ ids: doomed, mqtt }, 'pooled');
      expect((await fx.tenant.api.get(`/sms/${pooledUuid}`)).body.device_id).to.equal(doomed.uuid);

      // Another device of the account comes online; it must end up with the pooled SMS.
      const heir = await device(fx.tenant, 'heir');
      const phone = simulatedFor(fx.gateway, { id: heir.uuid }, heir.token);
      phones.push(phone);
      const delivered = nextEvent(phone, 'report', (smsId, status) => smsId === pooledUuid && status === 'delivered');
      await phone.connect();

      expectNoContent(await fx.tenant.root.post('/devices/del', { device_id: doomed.objectId }));
      await mqtt.whenClosed();
      await delivered;

      expect(await legacyGet(fx.tenant, named.pending!)).to.deep.include({ status: 3, message_status: 'failed', device_id: doomed.objectId });
      // Taken by the phone, which can no longer report it: ended, never handed out again.
      expect(await legacyGet(fx.tenant, named.processing!)).to.deep.include({ status: 3, message_status: 'failed', device_id: doomed.objectId });
      expect(await legacyGet(fx.tenant, named.sent!), 'sent: its delivery can no longer be confirmed').to.deep.include({ status: 5, device_id: doomed.objectId });
      expect((await legacyGet(fx.tenant, named.delivered!)).status, 'already delivered: unchanged').to.equal(4);
      const failed = (await fx.tenant.api.get(`/sms/${await uuidOfMessage(fx.tenant, 'named pending')}`)).body;
      expect(failed.reason, 'the SMS says why').to.equal('device_deleted');
      expect(failed.history.at(-1)).to.deep.include({ status: 'failed_send', source: 'system', reason: 'device_deleted' });

      expect(await legacyGet(fx.tenant, pooled)).to.deep.include({ status: 4, device_id: '' });
      expect((await fx.tenant.api.get(`/sms/${pooledUuid}`)).body.device_id).to.equal(heir.uuid);
      expect([...phone.handled.keys()], 'the heir got only the pooled SMS').to.deep.equal([pooledUuid]);
    });

    it('then with no other device online its unnamed unacknowledged SMS wait, unassigned (status 0)', async () => {
      const doomed = await device();
      const mqtt = await fx.clients.device(doomed.uuid, doomed.token);
      await takeTasks(mqtt, doomed.uuid);
      const { objectId: pooled, uuid } = await sendTaken({ ids: doomed, mqtt }, 'orphan');
      expect((await fx.tenant.api.get(`/sms/${uuid}`)).body.device_id).to.equal(doomed.uuid);
      expectNoContent(await fx.tenant.root.post('/devices/del', { device_id: doomed.uuid }));
      expect(await legacyGet(fx.tenant, pooled)).to.deep.include({ status: 0, message_status: 'waiting', device_id: '' });
      expect((await fx.tenant.api.get(`/sms/${uuid}`)).body).to.deep.include({ device_id: null, status: 'pending' });
    });
  });

  describe('when POST /devices/del cannot delete', () => {
    it('then no device reference is a 400 naming device_id', async () => {
      const reply = await fx.tenant.root.post('/devices/del', {});
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.include('device_id');
    });

    for (const id of MALFORMED_IDS) {
      it(`then the malformed device_id ${JSON.stringify(id)} is a 400 invalid_id`, async () => {
        expectError(await fx.tenant.root.post('/devices/del', { device_id: id }), 400, 'invalid_id');
      });
    }

    it("then an unknown device or another account's is a 404, and the other account's device stays", async () => {
      expectError(await fx.tenant.root.post('/devices/del', { device_id: UNKNOWN_OBJECT_ID }), 404, 'device_not_found');
      expectError(await fx.tenant.root.post('/devices/del', { id: UNKNOWN_UUID }), 404, 'device_not_found');
      const other = await fx.newTenant();
      const theirs = await device(other);
      for (const [, reference] of REFERENCES) expectError(await fx.tenant.root.post('/devices/del', reference(theirs)), 404, 'device_not_found');
      expect((await other.root.post('/devices/get/info', { device_id: theirs.objectId })).status).to.equal(200);
    });

    it('then a key without devices:write is a 403 and the device stays; a key with only it may delete', async () => {
      const ids = await device();
      const refused = await (await legacyKeyWith(fx.gateway, fx.tenant, allBut('devices:write'))).post('/devices/del', { device_id: ids.objectId });
      expectError(refused, 403, 'forbidden');
      expect(refused.body.error.message).to.contain('devices:write');
      expect((await info({ device_id: ids.objectId })).status).to.equal(200);

      const allowed = await legacyKeyWith(fx.gateway, fx.tenant, ['devices:write']);
      expectNoContent(await allowed.post('/devices/del', { device_id: ids.objectId }));
      expectError(await info({ device_id: ids.objectId }), 404, 'device_not_found');
    });

    it('then no key is a 401 unauthorized and the device stays', async () => {
      const ids = await device();
      expectError(await new ApiClient(fx.tenant.root.baseUrl, undefined).post('/devices/del', { device_id: ids.objectId }), 401, 'unauthorized');
      expect((await info({ device_id: ids.objectId })).status).to.equal(200);
    });
  });
});
