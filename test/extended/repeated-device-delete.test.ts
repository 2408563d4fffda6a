// DELETE /api/ext/v1/devices/{id} said again, as a client does after a timeout hid the first
// answer: a device the same account already deleted is answered 204 again and nothing more
// happens; a device that was never the account's, or another account's (deleted or not), is a 404.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { registerDevice, type Reply } from '../support/tenant.ts';
import { expectError, UNKNOWN_ID } from '../support/expectations.ts';
import { deviceRow } from '../support/legacy.ts';
import { deviceRow as storedDeviceRow } from '../support/test-data.ts';

const PHONE = '+79161234567';

function expectNoContent(reply: Reply): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(204);
  expect(reply.body).to.equal(undefined);
}

describe('Extended API: DELETE /devices/{id} said again', () => {
  const fx = useGateway();

  describe('when the account already deleted the device', () => {
    it('then it answers 204 again and nothing more happens to the device or its SMS', async () => {
      const { device } = await fx.registerDevice();
      const sms = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'named', device_id: device.id })).body;
      // The bus has no way to remove a listener: this one only counts this test's device.
      let announced = 0;
      fx.gateway.services.events.on('device.deleted', (deleted) => void (deleted.id === device.id && announced++));
      expectNoContent(await fx.tenant.api.delete(`/devices/${device.id}`));
      const failed = (await fx.tenant.api.get(`/sms/${sms.id}`)).body;
      expect(failed).to.include({ status: 'failed_send', reason: 'device_deleted' });
      const tombstone = await storedDeviceRow(fx, device.id);

      expectNoContent(await fx.tenant.api.delete(`/devices/${device.id}`));
      expectNoContent(await fx.tenant.api.delete(`/devices/${device.id.toUpperCase()}`));
      expect(announced, 'the deletion was announced once').to.equal(1);
      expect((await fx.tenant.api.get(`/sms/${sms.id}`)).body.history).to.deep.equal(failed.history);
      expect(await storedDeviceRow(fx, device.id), 'the row is untouched').to.deep.equal(tombstone);
    });

    it('then reading it, changing it or sending through it is still a 404', async () => {
      const { device } = await fx.registerDevice();
      expectNoContent(await fx.tenant.api.delete(`/devices/${device.id}`));
      expectNoContent(await fx.tenant.api.delete(`/devices/${device.id}`));
      expectError(await fx.tenant.api.get(`/devices/${device.id}`), 404, 'device_not_found');
      expectError(await fx.tenant.api.patch(`/devices/${device.id}/settings`, { can_send_sms: true }), 404, 'device_not_found');
      expectError(await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: device.id }), 404, 'device_not_found');
    });

    it('then the legacy POST /devices/del of it answers 204 too, and the other way round', async () => {
      const first = (await fx.registerDevice('first')).device;
      expectNoContent(await fx.tenant.api.delete(`/devices/${first.id}`));
      const objectId = (await storedDeviceRow(fx, first.id))!.object_id as string;
      expectNoContent(await fx.tenant.root.post('/devices/del', { device_id: objectId }));

      const second = (await fx.registerDevice('second')).device;
      expectNoContent(await fx.tenant.root.post('/devices/del', { device_id: (await deviceRow(fx.gateway, fx.tenant, second.id)).object_id }));
      expectNoContent(await fx.tenant.api.delete(`/devices/${second.id}`));
    });

    it('then deletes of one device sent at the same time all answer 204', async () => {
      const { device } = await fx.registerDevice();
      const replies = await Promise.all(Array.from({ length: 6 }, () => fx.tenant.api.delete(`/devices/${device.id}`)));
      for (const reply of replies) expectNoContent(reply);
    });
  });

  describe('when the account never had the device', () => {
    it("then another account's deleted device is a 404", async () => {
      const other = await fx.newTenant();
      const { device } = await registerDevice(fx.gateway, other);
      expectNoContent(await other.api.delete(`/devices/${device.id}`));
      expectError(await fx.tenant.api.delete(`/devices/${device.id}`), 404, 'device_not_found');
      // Its owner's retry still succeeds.
      expectNoContent(await other.api.delete(`/devices/${device.id}`));
    });

    it('then an id that never named a device is a 404', async () => {
      expectError(await fx.tenant.api.delete(`/devices/${UNKNOWN_ID}`), 404, 'device_not_found');
    });
  });
});
