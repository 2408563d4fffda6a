// Legacy POST /sms/get and DELETE /sms/del: the SMS object's fields, the numeric statuses 0..5
// and their labels for every internal status, identifiers of both families, and one SMS seen,
// read and deleted through either family.
import { expect } from 'chai';
import type { SmsStatus } from '../../src/modules/messages/status.ts';
import { useGateway } from '../support/use-gateway.ts';
import { ApiClient } from '../support/tenant.ts';
import { detailFields, expectError } from '../support/expectations.ts';
import { nextTask, takeTasks } from '../support/mqtt.ts';
import {
  allBut,
  deviceRow,
  driveTo,
  expectLegacySms,
  LEGACY_LABEL,
  LEGACY_NUMBER,
  LEGACY_SMS_KEYS,
  legacyGet,
  legacyKeyWith,
  legacySend,
  MALFORMED_IDS,
  objectIdOfMessage,
  OBJECT_ID,
  PHONE,
  UNKNOWN_OBJECT_ID,
  UNKNOWN_UUID,
  uuidOfMessage,
} from '../support/legacy.ts';

/** Extended API status of each internal one (processing shows as pending there). */
const EXTENDED_STATUS: Record<SmsStatus, string> = {
  pending: 'pending',
  processing: 'pending',
  sent: 'sent',
  failed_send: 'failed_send',
  delivered: 'delivered',
  undelivered: 'undelivered',
  failed_delivery: 'failed_delivery',
};

describe('legacy API: POST /sms/get and DELETE /sms/del', () => {
  const fx = useGateway();


  /** A device of the tenant, online over a raw MQTT connection whose every report the test sends. */
  async function rawDevice() {
    const { device, token } = await fx.registerDevice();
    const mqtt = await fx.clients.device(device.id, token);
    const row = await deviceRow(fx.gateway, fx.tenant, device.id);
    return { mqtt, uuid: device.id, objectId: row.object_id };
  }

  describe('when POST /sms/get reads an SMS', () => {
    it('then the body has exactly the fields of the legacy SMS object, each of its type', async () => {
      const id = await legacySend(fx.tenant, { message: 'fields' });
      const reply = await fx.tenant.root.post('/sms/get', { id });
      expect(reply.status).to.equal(200);
      expect(reply.headers.get('content-type') ?? '').to.match(/^application\/json\b/);
      expect(Object.keys(reply.body)).to.have.members([...LEGACY_SMS_KEYS]);
      expectLegacySms(reply.body);
      expect(reply.body).to.deep.equal({
        id,
        message: 'fields',
        status: 0,
        callback_id: '',
        device_id: '',
        phone_number: PHONE,
        message_status: 'waiting',
        time_create: reply.body.time_create,
        to_sim: null,
      });
    });

    it('then time_create is the creation time in whole Unix seconds (the floor), not milliseconds', async () => {
      const before = Date.now();
      const id = await legacySend(fx.tenant, { message: 'when' });
      const after = Date.now();
      const sms = await legacyGet(fx.tenant, id);
      expect(Number.isInteger(sms.time_create)).to.equal(true);
      expect(sms.time_create).to.be.within(Math.floor(before / 1000), Math.floor(after / 1000));
      // The Extended API shows the same creation time to the millisecond (its sent_at).
      const extended = await fx.tenant.api.get(`/sms/${await uuidOfMessage(fx.tenant, 'when')}`);
      expect(sms.time_create).to.equal(Math.floor(Date.parse(extended.body.sent_at) / 1000));
    });

    it('then time_create stays the creation time when the status changes later', async () => {
      const device = await rawDevice();
      const id = await legacySend(fx.tenant, { message: 'later', device_id: device.objectId });
      const created = (await legacyGet(fx.tenant, id)).time_create;
      const uuid = await uuidOfMessage(fx.tenant, 'later');
      const sentAt = (await fx.tenant.api.get(`/sms/${uuid}`)).body.sent_at;
      await driveTo(device.mqtt, device.uuid, uuid, 'delivered');
      const read = await legacyGet(fx.tenant, id);
      expect(read.status).to.equal(4);
      expect(read.time_create).to.equal(created);
      expect(read.time_create).to.equal(Math.floor(Date.parse(sentAt) / 1000));
    });

    it('then an SMS sent to a named device shows that device\'s object id, and callback_id ""', async () => {
      const device = await rawDevice();
      const id = await legacySend(fx.tenant, { device_id: device.uuid, to_sim: 1 });
      expect(await legacyGet(fx.tenant, id)).to.deep.include({ device_id: device.objectId, callback_id: '', to_sim: 1 });
    });

    it('then an SMS the gateway gave to a device itself still shows device_id "" (no device was named)', async () => {
      const device = await rawDevice();
      await takeTasks(device.mqtt, device.uuid);
      const id = await legacySend(fx.tenant, { message: 'picked' });
      const uuid = await uuidOfMessage(fx.tenant, 'picked');
      // The ready device claims it right after it is stored.
      await nextTask(device.mqtt, device.uuid, uuid);
      expect((await fx.tenant.api.get(`/sms/${uuid}`)).body.device_id, 'the gateway handed it to the device').to.equal(device.uuid);
      expect((await legacyGet(fx.tenant, id)).device_id).to.equal('');
    });

    it('then the id may be given in upper case', async () => {
      const id = await legacySend(fx.tenant);
      expect((await legacyGet(fx.tenant, id.toUpperCase())).id).to.equal(id);
    });
  });

  describe('when the SMS is in each internal status', () => {
    for (const [internal, number] of Object.entries(LEGACY_NUMBER) as [SmsStatus, number][]) {
      it(`then ${internal} reads as status ${number}, message_status "${LEGACY_LABEL[number]}", in /sms/get and GET /sms`, async () => {
        const device = await rawDevice();
        const message = `status ${internal}`;
        const id = await legacySend(fx.tenant, { message, device_id: device.objectId });
        const uuid = await uuidOfMessage(fx.tenant, message);
        await driveTo(device.mqtt, device.uuid, uuid, internal);

        // The SMS really is in that status: the Extended API's history says so.
        const extended = await fx.tenant.api.get(`/sms/${uuid}`);
        expect(extended.body.history.at(-1).internal_status).to.equal(internal);
        expect(extended.body.status).to.equal(EXTENDED_STATUS[internal]);

        const read = await legacyGet(fx.tenant, id);
        expect(read).to.deep.include({ status: number, message_status: LEGACY_LABEL[number] });
        expect(await legacyGet(fx.tenant, uuid), 'the same through its UUID').to.deep.equal(read);
        const list = await fx.tenant.root.get('/sms?limit=10');
        expect(list.body.sms_list).to.deep.equal([read]);
      });
    }

    it('then every number has one label and no two numbers share one', () => {
      expect(new Set(Object.values(LEGACY_LABEL)).size).to.equal(6);
    });
  });

  describe('when the id names no SMS of the account', () => {
    for (const [form, id] of [
      ['object id', UNKNOWN_OBJECT_ID],
      ['UUID', UNKNOWN_UUID],
    ] as const) {
      it(`then an unknown ${form} is a 404 sms_not_found`, async () => {
        await legacySend(fx.tenant);
        expectError(await fx.tenant.root.post('/sms/get', { id }), 404, 'sms_not_found');
      });
    }

    for (const form of ['object id', 'UUID'] as const) {
      it(`then another account's SMS (${form}) is a 404 sms_not_found`, async () => {
        const other = await fx.newTenant();
        const objectId = await legacySend(other, { message: 'theirs' });
        const id = form === 'object id' ? objectId : await uuidOfMessage(other, 'theirs');
        expectError(await fx.tenant.root.post('/sms/get', { id }), 404, 'sms_not_found');
        // Its owner still reads it.
        expect((await legacyGet(other, id)).message).to.equal('theirs');
      });
    }
  });

  describe('when the id is malformed or missing', () => {
    for (const id of MALFORMED_IDS) {
      it(`then ${JSON.stringify(id)} is a 400 invalid_id naming id`, async () => {
        const reply = await fx.tenant.root.post('/sms/get', { id });
        expectError(reply, 400, 'invalid_id');
        expect(detailFields(reply)).to.deep.equal(['id']);
      });
    }

    for (const [name, body] of [
      ['no id', {}],
      ['id a number', { id: 5 }],
      ['id null', { id: null }],
      ['an unknown field besides id', { id: UNKNOWN_OBJECT_ID, device_id: UNKNOWN_OBJECT_ID }],
    ] as const) {
      it(`then ${name} is a 400 validation_failed`, async () => {
        const reply = await fx.tenant.root.post('/sms/get', body);
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply).length).to.be.greaterThan(0);
      });
    }

    it('then malformed JSON is a 400 invalid_json and text/plain a 415', async () => {
      expectError(await fx.tenant.root.post('/sms/get', '{"id": '), 400, 'invalid_json');
      expectError(await fx.tenant.root.request('POST', '/sms/get', JSON.stringify({ id: UNKNOWN_OBJECT_ID }), { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    });
  });

  describe('when the caller may not read SMS', () => {
    it('then a key without sms:read is a 403 forbidden', async () => {
      const id = await legacySend(fx.tenant);
      const client = await legacyKeyWith(fx.gateway, fx.tenant, allBut('sms:read'));
      const reply = await client.post('/sms/get', { id });
      expectError(reply, 403, 'forbidden');
      expect(reply.body.error.message).to.contain('sms:read');
    });

    it('then no key is a 401 unauthorized', async () => {
      const id = await legacySend(fx.tenant);
      expectError(await new ApiClient(fx.tenant.root.baseUrl, undefined).post('/sms/get', { id }), 401, 'unauthorized');
    });
  });

  describe('when DELETE /sms/del deletes an SMS', () => {
    const carriers: [string, (client: ApiClient, id: string) => ReturnType<ApiClient['delete']>][] = [
      ['in the query string', (client, id) => client.delete(`/sms/del?id=${encodeURIComponent(id)}`)],
      ['in a JSON body', (client, id) => client.delete('/sms/del', { id })],
    ];
    for (const [where, del] of carriers) {
      for (const form of ['object id', 'UUID'] as const) {
        it(`then with the ${form} ${where} it answers 204 with no body, /sms/get is a 404 and a second delete a 204 again`, async () => {
          const objectId = await legacySend(fx.tenant, { message: 'doomed' });
          const uuid = await uuidOfMessage(fx.tenant, 'doomed');
          const keep = await legacySend(fx.tenant, { message: 'kept' });
          const id = form === 'object id' ? objectId : uuid;

          const reply = await del(fx.tenant.root, id);
          expect(reply.status).to.equal(204);
          expect(reply.body).to.equal(undefined);

          expectError(await fx.tenant.root.post('/sms/get', { id: objectId }), 404, 'sms_not_found');
          expectError(await fx.tenant.root.post('/sms/get', { id: uuid }), 404, 'sms_not_found');
          expectError(await fx.tenant.api.get(`/sms/${uuid}`), 404, 'sms_not_found');
          // Gone, and deleted by this account: a retry succeeds again (test/legacy/repeated-deletes.test.ts).
          expect((await del(fx.tenant.root, id)).status).to.equal(204);

          // Only that SMS is gone.
          const list = await fx.tenant.root.get('/sms?limit=10');
          expect(list.body.pagination.total_records).to.equal(1);
          expect(list.body.sms_list.map((sms: { id: string }) => sms.id)).to.deep.equal([keep]);
        });
      }
    }

    it('then an SMS that was already delivered can be deleted too', async () => {
      const device = await rawDevice();
      const id = await legacySend(fx.tenant, { message: 'done', device_id: device.objectId });
      await driveTo(device.mqtt, device.uuid, await uuidOfMessage(fx.tenant, 'done'), 'delivered');
      expect((await fx.tenant.root.delete(`/sms/del?id=${id}`)).status).to.equal(204);
      expectError(await fx.tenant.root.post('/sms/get', { id }), 404, 'sms_not_found');
    });
  });

  describe('when DELETE /sms/del cannot delete', () => {
    it('then without an id, in neither the query nor the body, it is a 400 naming id', async () => {
      for (const reply of [await fx.tenant.root.delete('/sms/del'), await fx.tenant.root.delete('/sms/del', {}), await fx.tenant.root.delete('/sms/del?id=')]) {
        expectError(reply, 400);
        expect(detailFields(reply)).to.include('id');
      }
    });

    for (const id of MALFORMED_IDS) {
      it(`then the malformed id ${JSON.stringify(id)} is a 400 invalid_id, in the query or the body`, async () => {
        expectError(await fx.tenant.root.delete(`/sms/del?id=${encodeURIComponent(id)}`), 400, 'invalid_id');
        expectError(await fx.tenant.root.delete('/sms/del', { id }), 400, 'invalid_id');
      });
    }

    for (const [form, id] of [
      ['object id', UNKNOWN_OBJECT_ID],
      ['UUID', UNKNOWN_UUID],
    ] as const) {
      it(`then an unknown ${form} is a 404 sms_not_found`, async () => {
        expectError(await fx.tenant.root.delete(`/sms/del?id=${id}`), 404, 'sms_not_found');
        expectError(await fx.tenant.root.delete('/sms/del', { id }), 404, 'sms_not_found');
      });
    }

    it("then another account's SMS is a 404 and stays", async () => {
      const other = await fx.newTenant();
      const id = await legacySend(other, { message: 'theirs' });
      expectError(await fx.tenant.root.delete(`/sms/del?id=${id}`), 404, 'sms_not_found');
      expectError(await fx.tenant.root.delete('/sms/del', { id }), 404, 'sms_not_found');
      expect((await legacyGet(other, id)).message).to.equal('theirs');
    });

    // An unknown query parameter is ignored (test/legacy/unknown-query-parameters.test.ts).
    it('then an unknown body field is a 400 naming it', async () => {
      const id = await legacySend(fx.tenant);
      const body = await fx.tenant.root.delete('/sms/del', { id, force: true });
      expectError(body, 400, 'validation_failed');
      expect(detailFields(body)).to.include('force');
      expect((await legacyGet(fx.tenant, id)).id).to.equal(id);
    });

    it('then a text/plain body is a 415 and malformed JSON a 400', async () => {
      const id = await legacySend(fx.tenant);
      expectError(await fx.tenant.root.request('DELETE', '/sms/del', JSON.stringify({ id }), { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
      expectError(await fx.tenant.root.delete('/sms/del', '{"id": '), 400, 'invalid_json');
      expect((await legacyGet(fx.tenant, id)).id).to.equal(id);
    });
  });

  describe('when the caller may not delete SMS', () => {
    it('then a key without sms:delete is a 403 forbidden and the SMS stays', async () => {
      const id = await legacySend(fx.tenant);
      const client = await legacyKeyWith(fx.gateway, fx.tenant, allBut('sms:delete'));
      for (const reply of [await client.delete(`/sms/del?id=${id}`), await client.delete('/sms/del', { id })]) {
        expectError(reply, 403, 'forbidden');
        expect(reply.body.error.message).to.contain('sms:delete');
      }
      expect((await legacyGet(fx.tenant, id)).id).to.equal(id);
    });

    it('then a key with only sms:delete deletes, but cannot read or list', async () => {
      const id = await legacySend(fx.tenant);
      const deleter = await legacyKeyWith(fx.gateway, fx.tenant, ['sms:delete']);
      expectError(await deleter.post('/sms/get', { id }), 403, 'forbidden');
      expectError(await deleter.get('/sms?limit=10'), 403, 'forbidden');
      expectError(await deleter.post('/sms/send', { message: 'x', phone_number: PHONE }), 403, 'forbidden');
      expect((await deleter.delete(`/sms/del?id=${id}`)).status).to.equal(204);
      expectError(await fx.tenant.root.post('/sms/get', { id }), 404, 'sms_not_found');
    });

    it('then no key is a 401 unauthorized and the SMS stays', async () => {
      const id = await legacySend(fx.tenant);
      expectError(await new ApiClient(fx.tenant.root.baseUrl, undefined).delete(`/sms/del?id=${id}`), 401, 'unauthorized');
      expect((await legacyGet(fx.tenant, id)).id).to.equal(id);
    });

    it('then POST /sms/del is a 405 method_not_allowed', async () => {
      const id = await legacySend(fx.tenant);
      expectError(await fx.tenant.root.post('/sms/del', { id }), 405, 'method_not_allowed');
      expect((await legacyGet(fx.tenant, id)).id).to.equal(id);
    });
  });

  describe('when an SMS is created with the Extended API (POST /api/ext/v1/sms)', () => {
    it('then /sms/get reads it by its UUID and by the object id GET /sms shows, and /sms/del deletes it', async () => {
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'from extended' });
      expect(created.status).to.equal(201);
      const uuid = created.body.id as string;

      const byUuid = await legacyGet(fx.tenant, uuid);
      expect(byUuid.id).to.match(OBJECT_ID);
      expect(byUuid).to.deep.include({
        message: 'from extended',
        phone_number: PHONE,
        status: 0,
        message_status: 'waiting',
        device_id: '',
        callback_id: '',
        to_sim: null,
        time_create: Math.floor(Date.parse(created.body.sent_at) / 1000),
      });

      const objectId = await objectIdOfMessage(fx.tenant, 'from extended');
      expect(objectId).to.equal(byUuid.id);
      expect(await legacyGet(fx.tenant, objectId)).to.deep.equal(byUuid);

      expect((await fx.tenant.root.delete(`/sms/del?id=${objectId}`)).status).to.equal(204);
      expectError(await fx.tenant.api.get(`/sms/${uuid}`), 404, 'sms_not_found');
      expectError(await fx.tenant.root.post('/sms/get', { id: uuid }), 404, 'sms_not_found');
    });

    it('then /sms/del deletes it by its UUID in a JSON body', async () => {
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'by uuid' });
      expect((await fx.tenant.root.delete('/sms/del', { id: created.body.id })).status).to.equal(204);
      expectError(await fx.tenant.api.get(`/sms/${created.body.id}`), 404, 'sms_not_found');
    });

    it('then one created for a named device shows that device\'s object id', async () => {
      const device = await rawDevice();
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'named', device_id: device.uuid });
      expect((await legacyGet(fx.tenant, created.body.id)).device_id).to.equal(device.objectId);
    });
  });

  describe('when an SMS is created with /sms/send', () => {
    it('then GET /api/ext/v1/sms/{uuid} shows the same message, phone and status, and follows its changes', async () => {
      const device = await rawDevice();
      const objectId = await legacySend(fx.tenant, { message: 'from legacy', device_id: device.objectId });
      const uuid = await uuidOfMessage(fx.tenant, 'from legacy');

      const extended = await fx.tenant.api.get(`/sms/${uuid}`);
      expect(extended.status).to.equal(200);
      expect(extended.body).to.deep.include({ id: uuid, message: 'from legacy', phone: PHONE, status: 'pending', device_id: device.uuid });
      const legacy = await legacyGet(fx.tenant, objectId);
      expect(legacy).to.deep.include({ message: 'from legacy', phone_number: PHONE, status: 0 });
      expect(legacy.time_create).to.equal(Math.floor(Date.parse(extended.body.sent_at) / 1000));

      await driveTo(device.mqtt, device.uuid, uuid, 'delivered');
      expect((await fx.tenant.api.get(`/sms/${uuid}`)).body.status).to.equal('delivered');
      expect(await legacyGet(fx.tenant, objectId)).to.deep.include({ status: 4, message_status: 'delivered' });
    });
  });
});
