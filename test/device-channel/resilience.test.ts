// Postgres is the queue: a task survives a device that drops mid-send, a device that never
// acknowledges, and a gateway restart (a broker that lost its memory), and is sent once.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import { nextEvent } from '../support/devices.ts';
import { nextMessage, rawDevice } from '../support/raw-device.ts';

const PHONE = '+79161234567';

describe('device channel: resilience', () => {
  describe('when a device drops right after taking a task', () => {
    const fx = useGateway({ tenant: 'once' });

    it('then it gets the task again on reconnect, re-acknowledges it, and sends the SMS once', async () => {
      const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'flaky');
      // The simulator waits a second between "processing" and "sent": time enough to drop and come back.
      const phone = new SimulatedDevice({
        brokerUrl: `mqtt://127.0.0.1:${fx.gateway.mqttPort}`,
        deviceId: device.id,
        token,
        reconnectPeriodMs: 50,
        delays: { sent: 1000 },
      });
      await phone.connect();
      try {
        phone.once('report', (_id, status) => {
          if (status === 'processing') phone.drop();
        });
        const redelivered = nextEvent(phone, 'task', (_task, again) => again === true);
        const delivered = nextEvent(phone, 'report', (_id, status) => status === 'delivered', 10_000);
        const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'mid-send drop' });

        const [task] = await redelivered;
        expect(task.sms_id).to.equal(created.body.id);
        await delivered;
        expect(phone.sendCount.get(created.body.id)).to.equal(1);
        const read = await fx.tenant.api.get(`/sms/${created.body.id}`);
        expect(read.body.status).to.equal('delivered');
        const statuses = read.body.history.map((entry: { internal_status: string }) => entry.internal_status);
        expect(statuses).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
      } finally {
        await phone.stop();
      }
    });
  });

  describe('when a device takes a task and never acknowledges it', () => {
    const fx = useGateway({ config: { taskRetryAfterMs: 300 } });

    it('then the sweep publishes the task again', async () => {
      const { gateway, tenant } = fx;
      const { device, token } = await gateway.services.devices.register(tenant.accountId, 'silent');
      const client = await rawDevice(gateway.mqttPort, device.id, token);
      try {
        const topic = deviceTopic(device.id, 'tasks');
        const first = nextMessage(client, topic);
        const created = await tenant.api.post('/sms', { phone: PHONE, message: 'retry me' });
        expect(JSON.parse((await first).toString()).sms_id).to.equal(created.body.id);
        const again = await nextMessage(client, topic, 15_000);
        expect(JSON.parse(again.toString()).sms_id).to.equal(created.body.id);
      } finally {
        await client.endAsync(true);
      }
    });
  });

  describe('when the gateway restarts while a task is unacknowledged', () => {
    // dataDir matters only on the embedded database; on PostgreSQL both gateways share the test database.
    const fx = useGateway({
      config: () => {
        const dataDir = mkdtempSync(join(tmpdir(), 'sms-gateway-restart-'));
        fx.onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
        return { dataDir };
      },
      tenant: 'once',
    });
    let dataDir: string;
    before(() => {
      dataDir = fx.gateway.config.dataDir;
    });

    it('then the device gets the task from the database after the restart and delivers it', async () => {
      let gateway = fx.gateway;
      const tenant = fx.tenant;
      const { device, token } = await gateway.services.devices.register(tenant.accountId, 'survivor');
      const client = await rawDevice(gateway.mqttPort, device.id, token);
      const first = nextMessage(client, deviceTopic(device.id, 'tasks'));
      const created = await tenant.api.post('/sms', { phone: PHONE, message: 'across a restart' });
      await first;
      await client.endAsync(true);
      await gateway.stop();

      gateway = await fx.startGateway({ dataDir });
      try {
        const reread = await gateway.services.devices.get(tenant.accountId, device.id);
        expect(gateway.services.devices.isOnline(reread.id)).to.equal(false);
        const phone = new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`, deviceId: device.id, token });
        const delivered = nextEvent(phone, 'report', (id, status) => id === created.body.id && status === 'delivered');
        await phone.connect();
        await delivered;
        await phone.stop();
        const sms = await gateway.services.messages.get(tenant.accountId, created.body.id);
        expect(sms.status).to.equal('delivered');
      } finally {
        await gateway.stop();
      }
    });
  });
});
