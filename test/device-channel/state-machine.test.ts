// Status reports drive the SMS state machine: pending -> processing -> sent -> delivered |
// undelivered | failed_delivery; processing -> failed_send. Reports are idempotent and
// order-tolerant, every change lands in the history, and updated_at follows it. The device is a
// raw MQTT client, so the test decides every report it sends.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { nextTask, takeTasks, topic, type RawClient } from '../support/mqtt.ts';

const IMPLIED = 'implied by a later report';

interface HistoryEntry {
  status: string;
  internal_status: string;
  source: string;
  reason: string | null;
  at: string;
}

describe('device channel: the SMS state machine', () => {
  const fx = useGateway();


  /** An online device (raw MQTT, taking tasks) and an SMS it claimed from the pool. */
  async function heldSms(): Promise<{ mqtt: RawClient; deviceId: string; smsId: string }> {
    const { device, token } = await fx.registerDevice();
    const mqtt = await fx.clients.device(device.id, token);
    await takeTasks(mqtt, device.id);
    const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'state machine' });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.device_id, 'stored unassigned').to.equal(null);
    await nextTask(mqtt, device.id, created.body.id);
    expect((await fx.tenant.api.get(`/sms/${created.body.id}`)).body.device_id, 'claimed by the online device').to.equal(device.id);
    return { mqtt, deviceId: device.id, smsId: created.body.id };
  }

  async function report(held: { mqtt: RawClient; deviceId: string; smsId: string }, status: string, error?: string): Promise<void> {
    await held.mqtt.publish(topic(held.deviceId, 'status'), JSON.stringify({ sms_id: held.smsId, status, ...(error ? { error } : {}) }), { qos: 2 });
  }

  async function read(smsId: string): Promise<{ status: string; reason: string | null; updated_at: string; history: HistoryEntry[] }> {
    const reply = await fx.tenant.api.get(`/sms/${smsId}`);
    expect(reply.status).to.equal(200);
    return reply.body;
  }

  const internal = (history: HistoryEntry[]) => history.map((entry) => entry.internal_status);

  describe('when the device sends the same report twice', () => {
    it('then the duplicate changes nothing: same status, same history, same updated_at', async () => {
      const held = await heldSms();
      await report(held, 'processing');
      await report(held, 'sent');
      const once = await read(held.smsId);
      expect(internal(once.history)).to.deep.equal(['pending', 'processing', 'sent']);

      await report(held, 'sent');
      await report(held, 'processing');
      await report(held, 'sent');
      expect(await read(held.smsId)).to.deep.equal(once);
    });
  });

  describe('when reports for the same SMS, duplicates included, arrive together', () => {
    it('then each status is recorded once, in order, whatever order they were applied in', async () => {
      const held = await heldSms();
      await Promise.all(['delivered', 'sent', 'processing', 'delivered', 'sent'].map((status) => report(held, status)));
      const sms = await read(held.smsId);
      expect(sms.status).to.equal('delivered');
      expect(internal(sms.history)).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
      expect(new Date(sms.updated_at).getTime()).to.equal(new Date(sms.history[3]!.at).getTime());
    });
  });

  describe('when "delivered" arrives before "sent"', () => {
    it('then it is accepted and the history reads pending, processing, sent, delivered with the skipped steps implied', async () => {
      const held = await heldSms();
      await report(held, 'delivered');
      const sms = await read(held.smsId);
      expect(sms.status).to.equal('delivered');
      expect(internal(sms.history)).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
      expect(sms.history.map((entry) => entry.reason)).to.deep.equal([null, IMPLIED, IMPLIED, null]);
      expect(sms.history.slice(1).map((entry) => entry.source)).to.deep.equal(['device', 'device', 'device']);
    });

    it('then from processing only sent is implied', async () => {
      const held = await heldSms();
      await report(held, 'processing');
      await report(held, 'delivered');
      const sms = await read(held.smsId);
      expect(internal(sms.history)).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
      expect(sms.history.map((entry) => entry.reason)).to.deep.equal([null, null, IMPLIED, null]);
    });
  });

  describe('when a late "sent" arrives after "delivered"', () => {
    it('then the SMS never moves back', async () => {
      const held = await heldSms();
      await report(held, 'processing');
      await report(held, 'sent');
      await report(held, 'delivered');
      const delivered = await read(held.smsId);
      await report(held, 'sent');
      await report(held, 'processing');
      const after = await read(held.smsId);
      expect(after.status).to.equal('delivered');
      expect(after).to.deep.equal(delivered);
    });
  });

  describe('when the device reports failed_send', () => {
    it('then processing -> failed_send applies, with the phone\'s error as the reason', async () => {
      const held = await heldSms();
      await report(held, 'processing');
      await report(held, 'failed_send', 'RESULT_ERROR_NO_SERVICE');
      const sms = await read(held.smsId);
      expect(sms.status).to.equal('failed_send');
      expect(sms.reason, 'the SMS carries the phone\'s error').to.equal('RESULT_ERROR_NO_SERVICE');
      expect(internal(sms.history)).to.deep.equal(['pending', 'processing', 'failed_send']);
      expect(sms.history[2]!.reason).to.equal('RESULT_ERROR_NO_SERVICE');
    });

    it('then a phone\'s error on failed_delivery is the SMS\'s reason too, and a successful step has none', async () => {
      const held = await heldSms();
      await report(held, 'sent');
      expect((await read(held.smsId)).reason, 'sent: no reason').to.equal(null);
      await report(held, 'failed_delivery', 'RESULT_ERROR_GENERIC_FAILURE');
      const sms = await read(held.smsId);
      expect(sms).to.include({ status: 'failed_delivery', reason: 'RESULT_ERROR_GENERIC_FAILURE' });
      expect(sms.history.at(-1)!.reason).to.equal('RESULT_ERROR_GENERIC_FAILURE');
    });

    it('then sent -> failed_send is ignored', async () => {
      const held = await heldSms();
      await report(held, 'processing');
      await report(held, 'sent');
      const sent = await read(held.smsId);
      await report(held, 'failed_send');
      expect(await read(held.smsId)).to.deep.equal(sent);
    });

    it('then after failed_send a late "delivered" is ignored', async () => {
      const held = await heldSms();
      await report(held, 'failed_send');
      const failed = await read(held.smsId);
      expect(internal(failed.history)).to.deep.equal(['pending', 'processing', 'failed_send']);
      await report(held, 'delivered');
      expect(await read(held.smsId)).to.deep.equal(failed);
    });
  });

  for (const outcome of ['undelivered', 'failed_delivery'] as const) {
    describe(`when the device reports ${outcome}`, () => {
      it(`then the Extended API shows ${outcome}, in the SMS and in its history`, async () => {
        const held = await heldSms();
        await report(held, 'processing');
        await report(held, 'sent');
        await report(held, outcome);
        const sms = await read(held.smsId);
        expect(sms.status).to.equal(outcome);
        expect(sms.history.map((entry) => entry.status)).to.deep.equal(['pending', 'pending', 'sent', outcome]);
        expect(internal(sms.history)).to.deep.equal(['pending', 'processing', 'sent', outcome]);
        const listed = await fx.tenant.api.get(`/sms?status=${outcome}`);
        expect(listed.status).to.equal(200);
        expect(listed.body.data.map((row: { id: string }) => row.id)).to.deep.equal([held.smsId]);
      });
    });
  }

  describe('when a report changes the status', () => {
    it('then updated_at equals the time of the last history entry, after every step', async () => {
      const held = await heldSms();
      const created = await read(held.smsId);
      expect(new Date(created.updated_at).getTime(), 'updated_at when created').to.equal(new Date(created.history[0]!.at).getTime());
      for (const status of ['processing', 'sent', 'delivered']) {
        await report(held, status);
        const sms = await read(held.smsId);
        expect(sms.history.at(-1)!.internal_status).to.equal(status);
        expect(new Date(sms.updated_at).getTime(), `updated_at after ${status}`).to.equal(new Date(sms.history.at(-1)!.at).getTime());
      }
    });
  });
});
