// A client whose DELETE /sms/del or POST /devices/del timed out cannot know whether it happened,
// so it sends it again. The gateway answers a delete of something the same account already
// deleted with the same 204, and changes nothing; an id the account never had, or another
// account's (deleted or not), stays a 404. An SMS leaves a tombstone with its ids alone; a device
// keeps its row, marked deleted.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError } from '../support/expectations.ts';
import { deletedSmsRows, smsRow } from '../support/test-data.ts';
import type { ApiClient, Reply } from '../support/tenant.ts';
import { deviceRow, legacyGet, legacySend, UNKNOWN_OBJECT_ID, UNKNOWN_UUID, uuidOfMessage } from '../support/legacy.ts';

/** The two places DELETE /sms/del takes the id from. */
const deleteSms: [string, (client: ApiClient, id: string) => Promise<Reply>][] = [
  ['in the query string', (client, id) => client.delete(`/sms/del?id=${encodeURIComponent(id)}`)],
  ['in a JSON body', (client, id) => client.delete('/sms/del', { id })],
];

function expectNoContent(reply: Reply): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(204);
  expect(reply.body).to.equal(undefined);
}

describe('legacy API: a delete said again', () => {
  const fx = useGateway();

  /** A registered device of the tenant (or of `owner`): both of its ids. */
  async function device(owner = fx.tenant) {
    const { device: registered } = await fx.registerDevice('doomed', owner);
    return { uuid: registered.id, objectId: (await deviceRow(fx.gateway, owner, registered.id)).object_id };
  }

  describe('when DELETE /sms/del deletes an SMS the account already deleted', () => {
    for (const [where, del] of deleteSms) {
      it(`then with the id ${where}, by either of its ids, it answers 204 again, and the SMS stays gone`, async () => {
        const objectId = await legacySend(fx.tenant, { message: 'twice' });
        const uuid = await uuidOfMessage(fx.tenant, 'twice');
        const kept = await legacySend(fx.tenant, { message: 'kept' });
        expectNoContent(await del(fx.tenant.root, objectId));

        for (const id of [objectId, uuid, objectId.toUpperCase(), objectId]) expectNoContent(await del(fx.tenant.root, id));
        expectError(await fx.tenant.root.post('/sms/get', { id: objectId }), 404, 'sms_not_found');
        expectError(await fx.tenant.api.get(`/sms/${uuid}`), 404, 'sms_not_found');
        const list = await fx.tenant.root.get('/sms?limit=10');
        expect(list.body.sms_list.map((sms: { id: string }) => sms.id)).to.deep.equal([kept]);
      });
    }

    it('then deletes of one SMS sent at the same time all answer 204', async () => {
      const id = await legacySend(fx.tenant);
      const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => deleteSms[i % 2]![1](fx.tenant.root, id)));
      for (const reply of replies) expectNoContent(reply);
      expectError(await fx.tenant.root.post('/sms/get', { id }), 404, 'sms_not_found');
    });

    it('then what remains of it holds its ids and the time, nothing of the message', async () => {
      const objectId = await legacySend(fx.tenant, { message: 'private words' });
      const uuid = await uuidOfMessage(fx.tenant, 'private words');
      expectNoContent(await fx.tenant.root.delete(`/sms/del?id=${objectId}`));
      const rows = await deletedSmsRows(fx, uuid);
      expect(rows).to.have.length(1);
      expect(Object.keys(rows[0]).sort()).to.deep.equal(['account_id', 'deleted_at', 'id', 'object_id']);
      expect(rows[0]).to.include({ id: uuid, object_id: objectId, account_id: fx.tenant.accountId });
      expect(await smsRow(fx, uuid)).to.equal(undefined);
    });
  });

  describe('when DELETE /sms/del names an SMS this account never deleted', () => {
    it("then another account's deleted SMS is a 404, by either id, in the query or the body", async () => {
      const other = await fx.newTenant();
      const objectId = await legacySend(other, { message: 'theirs' });
      const uuid = await uuidOfMessage(other, 'theirs');
      expectNoContent(await other.root.delete(`/sms/del?id=${objectId}`));
      for (const [, del] of deleteSms) {
        for (const id of [objectId, uuid]) expectError(await del(fx.tenant.root, id), 404, 'sms_not_found');
      }
      // Its owner's retry still succeeds.
      expectNoContent(await other.root.delete('/sms/del', { id: uuid }));
    });

    it('then an id that never named an SMS is a 404', async () => {
      for (const [, del] of deleteSms) {
        expectError(await del(fx.tenant.root, UNKNOWN_OBJECT_ID), 404, 'sms_not_found');
        expectError(await del(fx.tenant.root, UNKNOWN_UUID), 404, 'sms_not_found');
      }
    });
  });

  describe('when POST /devices/del deletes a device the account already deleted', () => {
    it('then it answers 204 again, by device_id or id, object id or UUID, and changes nothing', async () => {
      const ids = await device();
      const named = await legacySend(fx.tenant, { message: 'for the doomed one', device_id: ids.objectId });
      // The bus has no way to remove a listener: this one only counts this test's device.
      let announced = 0;
      fx.gateway.services.events.on('device.deleted', (deleted) => void (deleted.id === ids.uuid && announced++));
      expectNoContent(await fx.tenant.root.post('/devices/del', { device_id: ids.objectId }));
      const failed = (await fx.tenant.api.get(`/sms/${await uuidOfMessage(fx.tenant, 'for the doomed one')}`)).body;
      expect(failed).to.include({ status: 'failed_send', reason: 'device_deleted' });

      for (const body of [{ device_id: ids.objectId }, { device_id: ids.uuid }, { id: ids.objectId }, { id: ids.uuid }]) {
        expectNoContent(await fx.tenant.root.post('/devices/del', body));
      }
      expect(announced, 'the deletion was announced once').to.equal(1);
      const after = (await fx.tenant.api.get(`/sms/${failed.id}`)).body;
      expect(after.history, 'the SMS named for it: nothing more happened').to.deep.equal(failed.history);
      expect(await legacyGet(fx.tenant, named)).to.include({ status: 3, device_id: ids.objectId });
    });

    it('then a read or an edit of it is still a 404: only the delete is said again', async () => {
      const ids = await device();
      expectNoContent(await fx.tenant.root.post('/devices/del', { device_id: ids.objectId }));
      expectError(await fx.tenant.root.post('/devices/get/info', { device_id: ids.objectId }), 404, 'device_not_found');
      expectError(await fx.tenant.root.post('/devices/edit', { device_id: ids.objectId, is_active: true }), 404, 'device_not_found');
      expectError(await fx.tenant.root.post('/sms/send', { message: 'x', phone_number: '+79161234567', device_id: ids.objectId }), 404, 'device_not_found');
    });

    it('then deletes of one device sent at the same time all answer 204', async () => {
      const ids = await device();
      const replies = await Promise.all(Array.from({ length: 6 }, () => fx.tenant.root.post('/devices/del', { device_id: ids.objectId })));
      for (const reply of replies) expectNoContent(reply);
    });
  });

  describe('when POST /devices/del names a device this account never deleted', () => {
    it("then another account's deleted device is a 404, by either id", async () => {
      const other = await fx.newTenant();
      const theirs = await device(other);
      expectNoContent(await other.root.post('/devices/del', { device_id: theirs.objectId }));
      for (const body of [{ device_id: theirs.objectId }, { id: theirs.uuid }]) {
        expectError(await fx.tenant.root.post('/devices/del', body), 404, 'device_not_found');
      }
      expectError(await fx.tenant.api.delete(`/devices/${theirs.uuid}`), 404, 'device_not_found');
    });

    it('then an id that never named a device is a 404', async () => {
      expectError(await fx.tenant.root.post('/devices/del', { device_id: UNKNOWN_OBJECT_ID }), 404, 'device_not_found');
      expectError(await fx.tenant.root.post('/devices/del', { id: UNKNOWN_UUID }), 404, 'device_not_found');
    });
  });
});
