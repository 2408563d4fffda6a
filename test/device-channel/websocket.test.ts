// MQTT over WebSocket at /mqtt on the HTTP port (docs/asyncapi.yaml, server "websocket"): a
// device connected this way gets its tasks and its reports apply, as over TCP.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { nextEvent } from '../support/devices.ts';
import { RawClients } from '../support/mqtt.ts';

describe('device channel: MQTT over WebSocket', () => {
  const fx = useGateway();
  /** Raw clients over WebSocket (the fixture's own connect over TCP). */
  const clients = new RawClients(() => `ws://127.0.0.1:${fx.gateway.httpPort}/mqtt`);

  afterEach(() => clients.endAll());

  describe('when a device connects over ws://<http host>/mqtt', () => {
    it('then it is online, receives a task, and its delivered report applies', async () => {
      const phone = await fx.connectDevice({ brokerUrl: `ws://127.0.0.1:${fx.gateway.httpPort}/mqtt` });
      expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body.is_online).to.equal(true);

      const task = nextEvent(phone, 'task');
      const delivered = nextEvent(phone, 'report', (_id, status) => status === 'delivered');
      const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'over websocket' });
      expect(created.status).to.equal(201);
      // Stored unassigned; the phone claims it right after, over its WebSocket connection.
      expect(created.body.device_id).to.equal(null);
      const [received] = await task;
      expect(received).to.include({ sms_id: created.body.id, phone: '+79161234567', message: 'over websocket' });
      const [smsId] = await delivered;
      expect(smsId).to.equal(created.body.id);

      const read = await fx.tenant.api.get(`/sms/${smsId}`);
      expect(read.body).to.include({ status: 'delivered', device_id: phone.id });
      expect(read.body.history.map((entry: { internal_status: string }) => entry.internal_status)).to.deep.equal([
        'pending',
        'processing',
        'sent',
        'delivered',
      ]);
    });
  });

  describe('when a device connects over WebSocket with a wrong token', () => {
    it('then it is refused with "not authorized" (5), as over TCP', async () => {
      const { device } = await fx.registerDevice();
      const error = await clients.refused({ clientId: device.id, username: device.id, password: 'sgd_wrong' });
      expect(error.code).to.equal(5);
    });
  });
});
