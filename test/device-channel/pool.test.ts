// When a device can no longer send (can_send_sms turned off, or deleted), the tasks its phone has
// not acknowledged go back to the pool and on to another device. Those the client named that
// device for wait for it while it is switched off, and fail once it is deleted (the SMS and its
// history say why). Tasks the phone acknowledged stay with it while it is switched off, and end
// once it is deleted, since it can no longer report them. no_store SMS go once to an online
// device and leave no row.
import { expect } from 'chai';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import { nextEvent } from '../support/devices.ts';
import { nextMessage, rawDevice } from '../support/raw-device.ts';
import { smsCountOf } from '../support/test-data.ts';

const PHONE = '+79161234567';

describe('device channel: the pool of unsent SMS', () => {
  const fx = useGateway();

  /** A device that takes tasks and never reports: its SMS stay unsent. */
  async function silentDevice(name: string) {
    const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, name);
    const client = await rawDevice(fx.gateway.mqttPort, device.id, token);
    return { device, client };
  }

  for (const how of ['can_send_sms is turned off', 'it is deleted'] as const) {
    const deleted = how === 'it is deleted';
    const stopSending = async (deviceId: string) => {
      if (how === 'it is deleted') expect((await fx.tenant.api.delete(`/devices/${deviceId}`)).status).to.equal(204);
      else expect((await fx.tenant.api.patch(`/devices/${deviceId}/settings`, { can_send_sms: false })).status).to.equal(200);
    };

    describe(`when a device holding unsent SMS can no longer send because ${how}`, () => {
      it('then the SMS its phone had not acknowledged and the client did not name go to another online device and are delivered', async () => {
        const silent = await silentDevice('silent');
        const taken = nextMessage(silent.client, deviceTopic(silent.device.id, 'tasks'));
        const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'reassign me' });
        expect(created.body.device_id, 'stored unassigned: the pool').to.equal(null);
        expect(JSON.parse((await taken).toString()).sms_id).to.equal(created.body.id);
        expect((await fx.tenant.api.get(`/sms/${created.body.id}`)).body.device_id, 'claimed by the silent device').to.equal(silent.device.id);

        const other = await fx.connectDevice({ name: 'other' });
        const delivered = nextEvent(other, 'report', (id, status) => id === created.body.id && status === 'delivered');
        await stopSending(silent.device.id);
        await delivered;
        await silent.client.endAsync(true);

        const read = await fx.tenant.api.get(`/sms/${created.body.id}`);
        expect(read.body).to.include({ status: 'delivered', device_id: other.id, reason: null });
        // Given back before any phone took it: nothing failed, and it was sent once.
        expect(read.body.history.map((entry: { internal_status: string }) => entry.internal_status)).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
        expect(other.sendCount.get(created.body.id)).to.equal(1);
      });

      it(deleted ? 'then the SMS the client named that device for fail with reason device_deleted, in the SMS and its history' : 'then the SMS the client named that device for wait for it, pending, nothing failed', async () => {
        const silent = await silentDevice('named');
        const taken = nextMessage(silent.client, deviceTopic(silent.device.id, 'tasks'));
        const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'only you', device_id: silent.device.id });
        expect(created.body.device_id, 'named: answered with its device').to.equal(silent.device.id);
        await taken;
        await stopSending(silent.device.id);
        await silent.client.endAsync(true);

        const read = await fx.tenant.api.get(`/sms/${created.body.id}`);
        const last = read.body.history[read.body.history.length - 1];
        if (deleted) {
          expect(read.body).to.include({ status: 'failed_send', reason: 'device_deleted', device_id: silent.device.id });
          expect(last).to.include({ internal_status: 'failed_send', source: 'system', reason: 'device_deleted' });
        } else {
          expect(read.body).to.include({ status: 'pending', reason: null, device_id: silent.device.id });
          expect(read.body.history).to.have.length(1);
        }
      });

      it(deleted ? 'then the SMS its phone had acknowledged (processing) end failed_send, reason device_deleted: never handed out again' : 'then the SMS its phone had acknowledged (processing) stay with that device, still processing: neither failed nor handed out again', async () => {
        const silent = await silentDevice('busy');
        const named = nextMessage(silent.client, deviceTopic(silent.device.id, 'tasks'));
        const forIt = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'named, on the air', device_id: silent.device.id })).body;
        await named;
        const pooled = nextMessage(silent.client, deviceTopic(silent.device.id, 'tasks'));
        const forAnyone = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'pooled, on the air' })).body;
        await pooled;
        for (const sms of [forIt, forAnyone]) {
          await silent.client.publishAsync(deviceTopic(silent.device.id, 'status'), JSON.stringify({ sms_id: sms.id, status: 'processing' }), { qos: 2 });
        }

        const other = await fx.connectDevice({ name: 'other' });
        const tasks: string[] = [];
        other.on('task', (task) => tasks.push(task.sms_id));
        await stopSending(silent.device.id);
        // A marker SMS the other device takes: had the acknowledged ones gone back to the pool, it would have taken them first.
        const marker = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'marker' })).body;
        await nextEvent(other, 'report', (id, status) => id === marker.id && status === 'delivered');
        expect(tasks).to.deep.equal([marker.id]);

        for (const sms of [forIt, forAnyone]) {
          const read = await fx.tenant.api.get(`/sms/${sms.id}`);
          const steps = read.body.history.map((entry: { internal_status: string }) => entry.internal_status);
          if (deleted) {
            // Its phone can no longer report it: ended, so that it has a final status.
            expect(read.body, sms.message).to.include({ device_id: silent.device.id, status: 'failed_send', reason: 'device_deleted' });
            expect(steps, sms.message).to.deep.equal(['pending', 'processing', 'failed_send']);
          } else {
            expect(read.body, sms.message).to.include({ device_id: silent.device.id, status: 'pending', reason: null });
            expect(steps, sms.message).to.deep.equal(['pending', 'processing']);
          }
        }
        if (how === 'can_send_sms is turned off') {
          // Still connected, the phone finishes what it had taken.
          await silent.client.publishAsync(deviceTopic(silent.device.id, 'status'), JSON.stringify({ sms_id: forIt.id, status: 'sent' }), { qos: 2 });
          expect((await fx.tenant.api.get(`/sms/${forIt.id}`)).body.status).to.equal('sent');
        }
        await silent.client.endAsync(true);
      });
    });
  }

  describe('when a device is switched back to can_send_sms true', () => {
    it('then SMS waiting in the pool go to it', async () => {
      const phone = await fx.connectDevice({ name: 'muted' });
      await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { can_send_sms: false });
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'wait for permission' });
      expect(created.body.device_id).to.equal(null);
      const delivered = nextEvent(phone, 'report', (id, status) => id === created.body.id && status === 'delivered');
      await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { can_send_sms: true });
      await delivered;
    });
  });

  describe('when an SMS is sent with no_store', () => {
    it('then it goes once to an online device, its reports are followed in memory, and no row is written', async () => {
      const phone = await fx.connectDevice();
      const countRows = () => smsCountOf(fx, fx.tenant.accountId);
      const tasks: string[] = [];
      phone.on('task', (task) => tasks.push(task.sms_id));
      const delivered = nextEvent(phone, 'report', (_id, status) => status === 'delivered');
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'leave no trace', no_store: true });
      expect(created.status).to.equal(201);
      const [id] = await delivered;
      expect(id).to.equal(created.body.id);
      expect(tasks).to.deep.equal([created.body.id]);
      expect(await countRows()).to.equal(0);
      expect(fx.gateway.services.metrics.value('status_reports_total', { outcome: 'rejected' })).to.equal(0);
    });
  });
});
