// Bad input from devices: malformed JSON, wrong types, unknown fields, oversized payloads,
// unknown topics under the device's own prefix, reports for unknown SMS or for another device's
// SMS. Each is refused or ignored and counted with a reason; the connection and the broker stay
// up; nothing in the database changes; the same device's next valid report applies.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { useGateway } from '../support/use-gateway.ts';
import { nextTask, takeTasks, topic, type RawClient } from '../support/mqtt.ts';
import { eventually } from '../support/eventually.ts';
import { MAX_DEVICE_PAYLOAD_BYTES } from '../../broker/payloads.ts';
import { deviceRow, deviceTouchedRowsOf } from '../support/test-data.ts';

const REJECTED = 'device_messages_rejected_total';

interface Phone {
  id: string;
  token: string;
  mqtt: RawClient;
  /** An SMS assigned to this device, still pending. */
  smsId: string;
}

interface BadInput {
  what: string;
  reason: string;
  /** The topic kind under the device's own prefix and the payload, given the scene. */
  send: (scene: { me: Phone; other: Phone }) => { kind: string; payload: string | Buffer };
}

const validHeartbeat = { battery_level: 50, is_charging: false, sim_cards: [{ index: 0, name_operator: 'Op' }] };
const validIncoming = () => ({ id: randomUUID(), phone: '+79160000000', message: 'hi', received_at: new Date().toISOString() });

const BAD_INPUTS: BadInput[] = [
  { what: 'malformed JSON on status', reason: 'malformed_json', send: ({ me }) => ({ kind: 'status', payload: `{"sms_id": "${me.smsId}", "status": "sent"` }) },
  { what: 'a status payload that is not JSON at all', reason: 'malformed_json', send: () => ({ kind: 'status', payload: 'sent' }) },
  { what: 'a status report whose status has the wrong type', reason: 'invalid_payload', send: ({ me }) => ({ kind: 'status', payload: JSON.stringify({ sms_id: me.smsId, status: 2 }) }) },
  { what: 'a status report with a status that does not exist', reason: 'invalid_payload', send: ({ me }) => ({ kind: 'status', payload: JSON.stringify({ sms_id: me.smsId, status: 'pending' }) }) },
  { what: 'a status report whose sms_id is not a UUID', reason: 'invalid_payload', send: () => ({ kind: 'status', payload: JSON.stringify({ sms_id: 'abc', status: 'sent' }) }) },
  { what: 'a status report that is a JSON array', reason: 'invalid_payload', send: ({ me }) => ({ kind: 'status', payload: JSON.stringify([me.smsId, 'sent']) }) },
  { what: 'a status report with an unknown field', reason: 'invalid_payload', send: ({ me }) => ({ kind: 'status', payload: JSON.stringify({ sms_id: me.smsId, status: 'sent', extra: true }) }) },
  {
    what: 'a status report over 64 KiB',
    reason: 'payload_too_large',
    send: ({ me }) => ({ kind: 'status', payload: JSON.stringify({ sms_id: me.smsId, status: 'sent', error: 'x'.repeat(MAX_DEVICE_PAYLOAD_BYTES) }) }),
  },
  { what: 'a heartbeat with wrong types', reason: 'invalid_payload', send: () => ({ kind: 'heartbeat', payload: JSON.stringify({ ...validHeartbeat, battery_level: 'full', is_charging: 'yes' }) }) },
  { what: 'a heartbeat with an unknown field', reason: 'invalid_payload', send: () => ({ kind: 'heartbeat', payload: JSON.stringify({ ...validHeartbeat, imei: '123' }) }) },
  { what: 'a heartbeat with a battery level over 100', reason: 'invalid_payload', send: () => ({ kind: 'heartbeat', payload: JSON.stringify({ ...validHeartbeat, battery_level: 101 }) }) },
  { what: 'a heartbeat with a signal strength over 100', reason: 'invalid_payload', send: () => ({ kind: 'heartbeat', payload: JSON.stringify({ ...validHeartbeat, signal_percent: 101 }) }) },
  { what: 'malformed JSON on heartbeat', reason: 'malformed_json', send: () => ({ kind: 'heartbeat', payload: '{battery_level: 5}' }) },
  { what: 'a heartbeat over 64 KiB', reason: 'payload_too_large', send: () => ({ kind: 'heartbeat', payload: Buffer.alloc(MAX_DEVICE_PAYLOAD_BYTES + 1, 0x20) }) },
  { what: 'a presence that is neither online nor offline', reason: 'invalid_payload', send: () => ({ kind: 'presence', payload: 'maybe' }) },
  { what: 'an incoming SMS with an unknown field', reason: 'invalid_payload', send: () => ({ kind: 'incoming', payload: JSON.stringify({ ...validIncoming(), spam: true }) }) },
  { what: 'an incoming SMS without a phone', reason: 'invalid_payload', send: () => ({ kind: 'incoming', payload: JSON.stringify({ ...validIncoming(), phone: undefined }) }) },
  { what: 'malformed JSON on incoming', reason: 'malformed_json', send: () => ({ kind: 'incoming', payload: '{"id":' }) },
  { what: 'a message on an unknown topic under its own prefix (.../{id}/foo)', reason: 'unknown_topic', send: ({ me }) => ({ kind: 'foo', payload: JSON.stringify({ sms_id: me.smsId, status: 'sent' }) }) },
  {
    what: 'a message on its own tasks topic (gateway to device only)',
    reason: 'unknown_topic',
    send: ({ me }) => ({ kind: 'tasks', payload: JSON.stringify({ sms_id: me.smsId, phone: '+79161234567', message: 'self-made', sim: -2, created_at: new Date().toISOString() }) }),
  },
  {
    what: 'a message on a deeper unknown topic under its own prefix (.../{id}/status/extra)',
    reason: 'unknown_topic',
    send: ({ me }) => ({ kind: 'status/extra', payload: JSON.stringify({ sms_id: me.smsId, status: 'sent' }) }),
  },
  { what: 'a report for an unknown SMS id', reason: 'unknown_sms', send: () => ({ kind: 'status', payload: JSON.stringify({ sms_id: randomUUID(), status: 'delivered' }) }) },
  { what: 'a report for another device\'s SMS', reason: 'unknown_sms', send: ({ other }) => ({ kind: 'status', payload: JSON.stringify({ sms_id: other.smsId, status: 'delivered' }) }) },
];

describe('device channel: bad input from devices', () => {
  const fx = useGateway();


  /**
   * A device connected over raw MQTT, handed one SMS it has not acknowledged (it reports nothing
   * on its own): the gateway takes an acknowledgement only of a task it handed out.
   */
  async function phone(): Promise<Phone> {
    const { device, token } = await fx.registerDevice();
    const mqtt = await fx.clients.device(device.id, token);
    await takeTasks(mqtt, device.id);
    // The connect records last_seen_at without being awaited: let that land before any snapshot.
    await eventually('last_seen_at recorded', async () => (await deviceRow(fx, device.id))!.last_seen_at !== null);
    const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'held', device_id: device.id });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await nextTask(mqtt, device.id, created.body.id);
    return { id: device.id, token, mqtt, smsId: created.body.id };
  }

  /** Every row of the account that a device message could touch. */
  function snapshot(): Promise<Record<string, unknown[]>> {
    return deviceTouchedRowsOf(fx, fx.tenant.accountId);
  }

  async function statusOf(smsId: string): Promise<{ status: string; history: string[] }> {
    const read = await fx.tenant.api.get(`/sms/${smsId}`);
    return { status: read.body.status, history: read.body.history.map((entry: { internal_status: string }) => entry.internal_status) };
  }

  for (const input of BAD_INPUTS) {
    describe(`when a device publishes ${input.what}`, () => {
      it(`then it is counted as rejected (${input.reason}), nothing changes, and the connection stays up for a valid report`, async () => {
        // Forwarding on: an incoming SMS that is dropped is dropped for being bad, not for the setting.
        const me = await phone();
        await fx.tenant.api.patch(`/devices/${me.id}/settings`, { forward_incoming_sms: true });
        const other = await phone();
        const before = await snapshot();
        const counted = fx.gateway.services.metrics.value(REJECTED, { reason: input.reason });

        const { kind, payload } = input.send({ me, other });
        await me.mqtt.publish(`sms-gateway/v1/devices/${me.id}/${kind}`, payload);

        expect(fx.gateway.services.metrics.value(REJECTED, { reason: input.reason }), `${REJECTED}{reason="${input.reason}"}`).to.equal(counted + 1);
        expect(await snapshot(), 'the database is unchanged').to.deep.equal(before);
        expect(me.mqtt.closed, 'the connection stays up').to.equal(false);
        expect(fx.gateway.services.presence.isOnline(me.id)).to.equal(true);

        await me.mqtt.publish(topic(me.id, 'status'), JSON.stringify({ sms_id: me.smsId, status: 'processing' }));
        expect(await statusOf(me.smsId)).to.deep.equal({ status: 'pending', history: ['pending', 'processing'] });
        expect(me.mqtt.closed).to.equal(false);
      });
    });
  }

  describe('when a device sends every kind of bad input in a row', () => {
    it('then the broker stays up: new connections are accepted and a fresh device\'s reports apply', async () => {
      const me = await phone();
      const other = await phone();
      for (const input of BAD_INPUTS) {
        const { kind, payload } = input.send({ me, other });
        await me.mqtt.publish(`sms-gateway/v1/devices/${me.id}/${kind}`, payload, { qos: 1 });
      }
      await me.mqtt.publish(topic(me.id, 'status'), JSON.stringify({ sms_id: me.smsId, status: 'sent' }));
      expect(await statusOf(me.smsId)).to.deep.equal({ status: 'sent', history: ['pending', 'processing', 'sent'] });
      expect(fx.gateway.channel.listening).to.equal(true);

      const fresh = await phone();
      await fresh.mqtt.publish(topic(fresh.id, 'status'), JSON.stringify({ sms_id: fresh.smsId, status: 'delivered' }));
      expect((await statusOf(fresh.smsId)).status).to.equal('delivered');
      const health = await fx.tenant.root.get('/readyz');
      expect(health.status, JSON.stringify(health.body)).to.equal(200);
    });
  });
});
