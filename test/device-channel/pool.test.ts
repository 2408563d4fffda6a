// When a device can no longer send (can_send_sms turned off, or deleted), its unsent SMS go back
// to the pool and on to another device, or fail when the client had named that device; the
// status history says why. no_store SMS go once to an online device and leave no row.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { deviceTopic } from '../../broker/topics.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { connectDevice, nextEvent } from '../support/devices.ts';
import { nextMessage, rawDevice } from '../support/raw-device.ts';

const PHONE = '+79161234567';

describe('device channel: the pool of unsent SMS', () => {
  let gateway: Gateway;
  let tenant: Tenant;
  const simulated: SimulatedDevice[] = [];

  before(async () => {
    gateway = await startGateway();
  });
  after(async () => gateway.stop());
  beforeEach(async () => {
    tenant = await createTenant(gateway);
  });
  afterEach(async () => {
    await Promise.all(simulated.splice(0).map((device) => device.stop()));
  });

  /** A device that takes tasks and never reports: its SMS stay unsent. */
  async function silentDevice(name: string) {
    const { device, token } = await gateway.services.devices.register(tenant.accountId, name);
    const client = await rawDevice(gateway.mqttPort, device.id, token);
    return { device, client };
  }

  for (const how of ['can_send_sms is turned off', 'it is deleted'] as const) {
    describe(`when a device holding unsent SMS can no longer send because ${how}`, () => {
      it('then the SMS the client did not name go to another online device and are delivered', async () => {
        const silent = await silentDevice('silent');
        const taken = nextMessage(silent.client, deviceTopic(silent.device.id, 'tasks'));
        const created = await tenant.api.post('/sms', { phone: PHONE, message: 'reassign me' });
        expect(created.body.device_id).to.equal(silent.device.id);
        await taken;

        const other = await connectDevice(gateway, tenant, { name: 'other' });
        simulated.push(other);
        const delivered = nextEvent(other, 'report', (id, status) => id === created.body.id && status === 'delivered');
        if (how === 'it is deleted') expect((await tenant.api.delete(`/devices/${silent.device.id}`)).status).to.equal(204);
        else expect((await tenant.api.patch(`/devices/${silent.device.id}/settings`, { can_send_sms: false })).status).to.equal(200);
        await delivered;
        await silent.client.endAsync(true);

        const read = await tenant.api.get(`/sms/${created.body.id}`);
        expect(read.body).to.include({ status: 'delivered', device_id: other.id });
        const released = read.body.history.find((entry: { source: string }) => entry.source === 'system');
        expect(released.reason).to.match(how === 'it is deleted' ? /device deleted/ : /can_send_sms false/);
        expect(released.reason).to.contain('back to the pool');
      });

      it('then the SMS the client named that device for fail, and the history says why', async () => {
        const silent = await silentDevice('named');
        const taken = nextMessage(silent.client, deviceTopic(silent.device.id, 'tasks'));
        const created = await tenant.api.post('/sms', { phone: PHONE, message: 'only you', device_id: silent.device.id });
        await taken;
        if (how === 'it is deleted') await tenant.api.delete(`/devices/${silent.device.id}`);
        else await tenant.api.patch(`/devices/${silent.device.id}/settings`, { can_send_sms: false });
        await silent.client.endAsync(true);

        const read = await tenant.api.get(`/sms/${created.body.id}`);
        expect(read.body.status).to.equal('failed_send');
        const last = read.body.history[read.body.history.length - 1];
        expect(last).to.include({ internal_status: 'failed_send', source: 'system' });
        expect(last.reason).to.contain('the client named this device');
      });
    });
  }

  describe('when a device is switched back to can_send_sms true', () => {
    it('then SMS waiting in the pool go to it', async () => {
      const phone = await connectDevice(gateway, tenant, { name: 'muted' });
      simulated.push(phone);
      await tenant.api.patch(`/devices/${phone.id}/settings`, { can_send_sms: false });
      const created = await tenant.api.post('/sms', { phone: PHONE, message: 'wait for permission' });
      expect(created.body.device_id).to.equal(null);
      const delivered = nextEvent(phone, 'report', (id, status) => id === created.body.id && status === 'delivered');
      await tenant.api.patch(`/devices/${phone.id}/settings`, { can_send_sms: true });
      await delivered;
    });
  });

  describe('when an SMS is sent with no_store', () => {
    it('then it goes once to an online device, its reports are followed in memory, and no row is written', async () => {
      const phone = await connectDevice(gateway, tenant);
      simulated.push(phone);
      const countRows = async () => Number((await gateway.services.db('sms').where({ account_id: tenant.accountId }).count({ n: '*' }))[0]!.n);
      const tasks: string[] = [];
      phone.on('task', (task) => tasks.push(task.sms_id));
      const delivered = nextEvent(phone, 'report', (_id, status) => status === 'delivered');
      const created = await tenant.api.post('/sms', { phone: PHONE, message: 'leave no trace', no_store: true });
      expect(created.status).to.equal(201);
      const [id] = await delivered;
      expect(id).to.equal(created.body.id);
      expect(tasks).to.deep.equal([created.body.id]);
      expect(await countRows()).to.equal(0);
      expect(gateway.services.metrics.value('status_reports_total', { outcome: 'rejected' })).to.equal(0);
    });
  });
});
