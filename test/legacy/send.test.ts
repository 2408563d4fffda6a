// Legacy POST /sms/send: message and phone_number required; device_id, to_sim and callback_id
// optional; 200 {"id": "<24-hex object id>"}; the 170-character limit; device_id as an object
// id or a UUID; authentication and the error model (README, "Errors").
import { expect } from 'chai';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { useGateway } from '../support/use-gateway.ts';
import { ApiClient, registerDevice } from '../support/tenant.ts';
import { connectDevice, nextEvent } from '../support/devices.ts';
import { detailFields, expectError } from '../support/expectations.ts';
import {
  allBut,
  connectSimulated,
  deliveries,
  deviceRow,
  legacyGet,
  legacyKeyWith,
  legacySend,
  MALFORMED_IDS,
  OBJECT_ID,
  PHONE,
  simulatedFor,
  UNKNOWN_OBJECT_ID,
  UNKNOWN_UUID,
  uuidOfMessage,
} from '../support/legacy.ts';

const BODY_LIMIT = 64 * 1024;

describe('legacy API: POST /sms/send', () => {
  const fx = useGateway();

  async function phone(options: Parameters<typeof connectDevice>[2] = {}): Promise<SimulatedDevice> {
    const simulated = await fx.connectDevice(options);
    return simulated;
  }

  /** How many SMS the tenant has, through the legacy list. */
  async function stored(): Promise<number> {
    const reply = await fx.tenant.root.get('/sms?limit=1');
    expect(reply.status).to.equal(200);
    return reply.body.pagination.total_records;
  }

  const send = (body: unknown) => fx.tenant.root.post('/sms/send', body);

  describe('when message and phone_number are valid', () => {
    it('then it answers 200 with exactly {"id": <24-hex object id>}', async () => {
      const reply = await send({ message: 'Hello', phone_number: PHONE });
      expect(reply.status).to.equal(200);
      expect(reply.headers.get('content-type') ?? '').to.match(/^application\/json\b/);
      expect(Object.keys(reply.body)).to.deep.equal(['id']);
      expect(reply.body.id).to.match(OBJECT_ID);
    });

    it('then the id reads the stored SMS: status 0 "waiting", no device, no callback, to_sim null', async () => {
      const id = await legacySend(fx.tenant, { message: 'stored one' });
      expect(await legacyGet(fx.tenant, id)).to.deep.include({
        id,
        message: 'stored one',
        phone_number: PHONE,
        status: 0,
        message_status: 'waiting',
        device_id: '',
        callback_id: '',
        to_sim: null,
      });
    });

    it('then each SMS gets its own id', async () => {
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push(await legacySend(fx.tenant, { message: `n${i}` }));
      expect(new Set(ids).size).to.equal(5);
    });

    it('then a phone number written with spaces, brackets and dashes is stored in E.164', async () => {
      const id = await legacySend(fx.tenant, { phone_number: '+7 (916) 123-45-67' });
      expect((await legacyGet(fx.tenant, id)).phone_number).to.equal(PHONE);
    });
  });

  describe('when a required field is missing, empty or of the wrong type', () => {
    const cases: [string, unknown, string][] = [
      ['message missing', { phone_number: PHONE }, 'message'],
      ['phone_number missing', { message: 'x' }, 'phone_number'],
      ['message empty', { message: '', phone_number: PHONE }, 'message'],
      ['phone_number empty', { message: 'x', phone_number: '' }, 'phone_number'],
      ['message a number', { message: 42, phone_number: PHONE }, 'message'],
      ['message null', { message: null, phone_number: PHONE }, 'message'],
      ['phone_number a number', { message: 'x', phone_number: 79161234567 }, 'phone_number'],
      ['an empty object', {}, 'message'],
    ];
    for (const [name, body, field] of cases) {
      it(`then ${name} is a 400 naming ${field}, and nothing is stored`, async () => {
        const reply = await send(body);
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include(field);
        expect(await stored()).to.equal(0);
      });
    }

    it('then a message holding the NUL character is a 400 naming message', async () => {
      const reply = await send({ message: 'a\u0000b', phone_number: PHONE });
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.include('message');
      expect(await stored()).to.equal(0);
    });

    it('then an empty object names both message and phone_number', async () => {
      expect(detailFields(await send({}))).to.include.members(['message', 'phone_number']);
    });
  });

  describe('when phone_number is not a valid phone number', () => {
    for (const phoneNumber of ['12345', '+7916', 'not a phone', '+999123456789', '+7916123456789012']) {
      it(`then "${phoneNumber}" is a 400 invalid_phone naming phone_number`, async () => {
        const reply = await send({ message: 'x', phone_number: phoneNumber });
        expectError(reply, 400, 'invalid_phone');
        expect(detailFields(reply)).to.deep.equal(['phone_number']);
        expect(reply.body.error.message).to.contain('phone_number');
        expect(await stored()).to.equal(0);
      });
    }
  });

  describe('when the message is at the 170-character limit', () => {
    const cases: [string, string][] = [
      ['Latin letters', 'a'.repeat(170)],
      ['Cyrillic letters', 'ж'.repeat(170)],
      ['emoji with a skin tone', '👍🏽'.repeat(170)],
    ];
    for (const [alphabet, message] of cases) {
      it(`then 170 ${alphabet} are accepted and stored unchanged`, async () => {
        const id = await legacySend(fx.tenant, { message });
        expect((await legacyGet(fx.tenant, id)).message).to.equal(message);
      });

      it(`then 171 ${alphabet} are a 400 message_too_long, "message must not exceed 170 characters"`, async () => {
        const unit = [...new Intl.Segmenter().segment(message)][0]!.segment;
        const reply = await send({ message: message + unit, phone_number: PHONE });
        expectError(reply, 400, 'message_too_long');
        expect(reply.body.error.message).to.equal('message must not exceed 170 characters');
        expect(await stored()).to.equal(0);
      });
    }
  });

  describe('when device_id is absent or empty', () => {
    for (const [name, extra] of [
      ['absent', {}],
      ['an empty string', { device_id: '' }],
    ] as const) {
      it(`then with device_id ${name} a connected device of the account sends it, and device_id reads ""`, async () => {
        const simulated = await phone();
        const delivered = nextEvent(simulated, 'report', (_id, status) => status === 'delivered');
        const id = await legacySend(fx.tenant, { message: `any device (${name})`, ...extra });
        const [smsUuid] = await delivered;
        expect(smsUuid).to.equal(await uuidOfMessage(fx.tenant, `any device (${name})`));
        expect(await legacyGet(fx.tenant, id)).to.deep.include({ status: 4, device_id: '', to_sim: null });
        // The Extended API shows which device claimed it; the legacy view shows that none was named.
        expect((await fx.tenant.api.get(`/sms/${smsUuid}`)).body.device_id).to.equal(simulated.id);
      });
    }

    it('then with no device connected the SMS is stored and waits (status 0)', async () => {
      await fx.registerDevice();
      const id = await legacySend(fx.tenant);
      expect(await legacyGet(fx.tenant, id)).to.deep.include({ status: 0, device_id: '' });
    });
  });

  describe('when device_id names a device of the account', () => {
    for (const form of ['object id', 'UUID'] as const) {
      it(`then, given as its ${form}, only that device sends the SMS and device_id shows its object id`, async () => {
        const other = await phone({ name: 'other' });
        const { device, token } = await fx.registerDevice('named');
        const named = await connectSimulated(fx.gateway, device, token);
        fx.track(named);
        const row = await deviceRow(fx.gateway, fx.tenant, device.id);
        const deviceId = form === 'object id' ? row.object_id : device.id;

        // Left alone, the gateway would share these between the two idle devices.
        const delivered = deliveries(named, 3);
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) ids.push(await legacySend(fx.tenant, { message: `named ${i}`, device_id: deviceId }));
        const uuids = await Promise.all([0, 1, 2].map((i) => uuidOfMessage(fx.tenant, `named ${i}`)));
        expect(await delivered).to.have.members(uuids);

        for (const uuid of uuids) expect((await fx.tenant.api.get(`/sms/${uuid}`)).body.device_id).to.equal(device.id);
        for (const id of ids) expect(await legacyGet(fx.tenant, id)).to.deep.include({ status: 4, message_status: 'delivered', device_id: row.object_id });
        expect([...other.handled.keys()], 'the other online device got none of them').to.deep.equal([]);
      });
    }

    it('then an upper-case object id names the same device', async () => {
      const { device } = await fx.registerDevice();
      const row = await deviceRow(fx.gateway, fx.tenant, device.id);
      const id = await legacySend(fx.tenant, { device_id: row.object_id.toUpperCase() });
      expect((await legacyGet(fx.tenant, id)).device_id).to.equal(row.object_id);
    });

    it('then, while the named device is offline, the SMS waits for it even though another device is online', async () => {
      const online = await phone({ name: 'online' });
      const { device, token } = await fx.registerDevice('offline');
      const row = await deviceRow(fx.gateway, fx.tenant, device.id);
      const id = await legacySend(fx.tenant, { message: 'wait for me', device_id: row.object_id });
      const uuid = await uuidOfMessage(fx.tenant, 'wait for me');
      expect(await legacyGet(fx.tenant, id)).to.deep.include({ status: 0, device_id: row.object_id });
      expect((await fx.tenant.api.get(`/sms/${uuid}`)).body.device_id).to.equal(device.id);

      // An SMS without device_id goes to the online device; the named one still waits.
      const anyDelivered = nextEvent(online, 'report', (_id, status) => status === 'delivered');
      await legacySend(fx.tenant, { message: 'anyone' });
      await anyDelivered;
      expect(online.handled.has(uuid)).to.equal(false);
      expect((await legacyGet(fx.tenant, id)).status).to.equal(0);

      // When the named device connects, it takes the SMS and delivers it.
      const named = simulatedFor(fx.gateway, device, token);
      fx.track(named);
      const delivered = nextEvent(named, 'report', (smsId, status) => smsId === uuid && status === 'delivered');
      await named.connect();
      await delivered;
      expect(await legacyGet(fx.tenant, id)).to.deep.include({ status: 4, device_id: row.object_id });
      expect(online.handled.has(uuid)).to.equal(false);
    });

    for (const form of ['object id', 'UUID'] as const) {
      it(`then an unknown device (${form}) is a 404 device_not_found, and nothing is stored`, async () => {
        const reply = await send({ message: 'x', phone_number: PHONE, device_id: form === 'object id' ? UNKNOWN_OBJECT_ID : UNKNOWN_UUID });
        expectError(reply, 404, 'device_not_found');
        expect(await stored()).to.equal(0);
      });

      it(`then another account's device (${form}) is a 404 device_not_found`, async () => {
        const other = await fx.newTenant();
        const { device } = await registerDevice(fx.gateway, other);
        const row = await deviceRow(fx.gateway, other, device.id);
        const reply = await send({ message: 'x', phone_number: PHONE, device_id: form === 'object id' ? row.object_id : device.id });
        expectError(reply, 404, 'device_not_found');
        expect(await stored()).to.equal(0);
      });

      it(`then a deleted device (${form}) is a 404 device_not_found`, async () => {
        const { device } = await fx.registerDevice();
        const row = await deviceRow(fx.gateway, fx.tenant, device.id);
        expect((await fx.tenant.root.post('/devices/del', { device_id: row.object_id })).status).to.equal(204);
        const reply = await send({ message: 'x', phone_number: PHONE, device_id: form === 'object id' ? row.object_id : device.id });
        expectError(reply, 404, 'device_not_found');
      });

      it(`then a device that may not send (is_active false), named by its ${form}, is a 409 device_cannot_send`, async () => {
        const { device } = await fx.registerDevice();
        const row = await deviceRow(fx.gateway, fx.tenant, device.id);
        expect((await fx.tenant.root.post('/devices/edit', { device_id: row.object_id, is_active: false })).status).to.equal(204);
        const reply = await send({ message: 'x', phone_number: PHONE, device_id: form === 'object id' ? row.object_id : device.id });
        expectError(reply, 409, 'device_cannot_send');
        expect(reply.body.error.message).to.contain('can_send_sms');
        expect(await stored()).to.equal(0);
      });
    }

    for (const malformed of MALFORMED_IDS) {
      it(`then the malformed device_id ${JSON.stringify(malformed)} is a 400 invalid_id naming device_id`, async () => {
        const reply = await send({ message: 'x', phone_number: PHONE, device_id: malformed });
        expectError(reply, 400, 'invalid_id');
        expect(detailFields(reply)).to.deep.equal(['device_id']);
        expect(await stored()).to.equal(0);
      });
    }

    it('then a device_id that is not a string is a 400 naming device_id', async () => {
      const reply = await send({ message: 'x', phone_number: PHONE, device_id: 12345 });
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.include('device_id');
    });
  });

  describe('when to_sim is given', () => {
    it('then without to_sim the record shows to_sim null', async () => {
      const id = await legacySend(fx.tenant);
      expect((await legacyGet(fx.tenant, id)).to_sim).to.equal(null);
    });

    it('then to_sim null is the same as no to_sim', async () => {
      const id = await legacySend(fx.tenant, { to_sim: null });
      expect((await legacyGet(fx.tenant, id)).to_sim).to.equal(null);
    });

    for (const slot of [0, 1, 2, -1, -2]) {
      it(`then to_sim ${slot} is stored and shown by /sms/get and GET /sms`, async () => {
        const { device } = await fx.registerDevice();
        const row = await deviceRow(fx.gateway, fx.tenant, device.id);
        const id = await legacySend(fx.tenant, { device_id: row.object_id, to_sim: slot });
        expect((await legacyGet(fx.tenant, id)).to_sim).to.equal(slot);
        const list = await fx.tenant.root.get('/sms?limit=10');
        expect(list.body.sms_list.map((sms: { id: string; to_sim: number }) => [sms.id, sms.to_sim])).to.deep.equal([[id, slot]]);
      });
    }

    it('then the slot reaches the device in its task', async () => {
      const { device, token } = await fx.registerDevice();
      const simulated = await connectSimulated(fx.gateway, device, token, {
        simCards: [
          { index: 0, name_operator: 'A' },
          { index: 1, name_operator: 'B' },
        ],
      });
      fx.track(simulated);
      const row = await deviceRow(fx.gateway, fx.tenant, device.id);
      const task = nextEvent(simulated, 'task', (sent) => sent.message === 'second slot');
      await legacySend(fx.tenant, { message: 'second slot', device_id: row.object_id, to_sim: 1 });
      const [received] = await task;
      expect(received.sim).to.equal(1);
    });

    for (const value of [3, -3, 99, '1', 1.5, true, [1]]) {
      it(`then to_sim ${JSON.stringify(value)} is a 400 naming to_sim, and nothing is stored`, async () => {
        const reply = await send({ message: 'x', phone_number: PHONE, to_sim: value });
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include('to_sim');
        expect(await stored()).to.equal(0);
      });
    }
  });

  describe('when callback_id is given', () => {
    it('then callback_id "" means none, and /sms/get shows callback_id ""', async () => {
      const id = await legacySend(fx.tenant, { callback_id: '' });
      expect((await legacyGet(fx.tenant, id)).callback_id).to.equal('');
    });

    for (const callbackId of ['hook-1', '64f1c0ffee0000000000abcd', UNKNOWN_UUID, ' ']) {
      it(`then callback_id ${JSON.stringify(callbackId)}, which names no webhook of the account, is a 400 unknown_callback`, async () => {
        const reply = await send({ message: 'x', phone_number: PHONE, callback_id: callbackId });
        expectError(reply, 400, 'unknown_callback');
        expect(detailFields(reply)).to.deep.equal(['callback_id']);
        expect(await stored()).to.equal(0);
      });
    }

    it('then a callback_id that is not a string is a 400 naming callback_id', async () => {
      const reply = await send({ message: 'x', phone_number: PHONE, callback_id: 7 });
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.include('callback_id');
    });
  });

  describe('when the body has a field the endpoint does not know', () => {
    for (const [field, value] of [
      ['priority', 1],
      ['no_store', true],
      ['phone', PHONE],
    ] as const) {
      it(`then "${field}" is a 400 naming it, and nothing is stored`, async () => {
        const reply = await send({ message: 'x', phone_number: PHONE, [field]: value });
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include(field);
        expect(await stored()).to.equal(0);
      });
    }
  });

  describe('when the request is not one JSON object', () => {
    for (const body of ['{"message": "x", "phone_number": ', "{'message': 'x'}", '{"message": "x",}', 'hello']) {
      it(`then the malformed JSON ${JSON.stringify(body)} is a 400 invalid_json`, async () => {
        expectError(await send(body), 400, 'invalid_json');
      });
    }

    for (const body of ['[]', '"hello"', '42', 'null']) {
      it(`then the JSON value ${body} is a 400`, async () => {
        const reply = await send(body);
        expectError(reply, 400);
        expect(reply.body.error.code).to.be.oneOf(['invalid_json', 'validation_failed']);
      });
    }

    it('then no body at all is a 400', async () => {
      expectError(await fx.tenant.root.request('POST', '/sms/send'), 400, 'validation_failed');
    });

    it('then a text/plain body is a 415 unsupported_media_type', async () => {
      const reply = await fx.tenant.root.request('POST', '/sms/send', JSON.stringify({ message: 'x', phone_number: PHONE }), { 'content-type': 'text/plain' });
      expectError(reply, 415, 'unsupported_media_type');
      expect(await stored()).to.equal(0);
    });

    it('then a form-encoded body is a 415 unsupported_media_type', async () => {
      const reply = await fx.tenant.root.request('POST', '/sms/send', `message=x&phone_number=${encodeURIComponent(PHONE)}`, {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expectError(reply, 415, 'unsupported_media_type');
    });

    it('then a body over the size limit is a 413 payload_too_large', async () => {
      const reply = await send(JSON.stringify({ message: 'a'.repeat(BODY_LIMIT + 1), phone_number: PHONE }));
      expectError(reply, 413, 'payload_too_large');
      expect(await stored()).to.equal(0);
    });

    it('then a body of a megabyte is a 413 payload_too_large', async () => {
      expectError(await send(JSON.stringify({ message: 'a'.repeat(1024 * 1024), phone_number: PHONE })), 413, 'payload_too_large');
    });
  });

  describe('when the caller is not allowed', () => {
    it('then a key without sms:send is a 403 forbidden naming the permission, and nothing is stored', async () => {
      const client = await legacyKeyWith(fx.gateway, fx.tenant, allBut('sms:send'));
      const reply = await client.post('/sms/send', { message: 'x', phone_number: PHONE });
      expectError(reply, 403, 'forbidden');
      expect(reply.body.error.message).to.contain('sms:send');
      expect(await stored()).to.equal(0);
    });

    it('then a key with only sms:send may send', async () => {
      const client = await legacyKeyWith(fx.gateway, fx.tenant, ['sms:send']);
      const reply = await client.post('/sms/send', { message: 'x', phone_number: PHONE });
      expect(reply.status).to.equal(200);
      expect(reply.body.id).to.match(OBJECT_ID);
    });

    it('then no key is a 401 unauthorized with WWW-Authenticate: Bearer', async () => {
      const anonymous = new ApiClient(fx.tenant.root.baseUrl, undefined);
      const reply = await anonymous.post('/sms/send', { message: 'x', phone_number: PHONE });
      expectError(reply, 401, 'unauthorized');
      expect(reply.headers.get('www-authenticate') ?? '').to.match(/^Bearer\b/);
      expect(await stored()).to.equal(0);
    });

    it('then an unknown key is a 401 unauthorized', async () => {
      const stranger = new ApiClient(fx.tenant.root.baseUrl, 'sgw_0123456789_' + 'A'.repeat(43));
      expectError(await stranger.post('/sms/send', { message: 'x', phone_number: PHONE }), 401, 'unauthorized');
    });

    it('then GET /sms/send is a 405 method_not_allowed', async () => {
      expectError(await fx.tenant.root.get('/sms/send'), 405, 'method_not_allowed');
    });
  });
});
