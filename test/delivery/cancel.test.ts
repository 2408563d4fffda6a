// POST /api/ext/v1/sms/{id}/cancel: an SMS no phone has taken yet ends as failed_send with reason
// "cancelled" and is never handed to a phone afterwards; cancelling again answers the same. Once
// a phone has taken it (reported processing) it is 409 already_taken; once it ended otherwise
// (expired) 409 already_final. Another account's SMS is 404, a key without sms:send 403.
import { expect } from 'chai';
import type { MqttClient } from 'mqtt';
import { ManualClock } from '../../src/common/clock.ts';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { Reply, Tenant } from '../support/tenant.ts';
import { expectError, MALFORMED_IDS, UNKNOWN_ID } from '../support/expectations.ts';
import { nextMessage, rawDevice } from '../support/raw-device.ts';
import { deliveries, simulatedFor } from '../support/legacy.ts';
import { eventually } from '../support/eventually.ts';

const PHONE = '+79161234567';
const UNPACED = { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } };

async function createSms(tenant: Tenant, fields: Record<string, unknown> = {}): Promise<any> {
  const reply = await tenant.api.post('/sms', { phone: PHONE, message: 'to cancel', ...fields });
  expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
  return reply.body;
}

function cancel(tenant: Tenant, id: string): Promise<Reply> {
  return tenant.api.post(`/sms/${id}/cancel`);
}

function internalStatuses(detail: { history: { internal_status: string }[] }): string[] {
  return detail.history.map((entry) => entry.internal_status);
}

describe('POST /api/ext/v1/sms/{id}/cancel', () => {
  const fx = useGateway();

  /** A registered device connected over a bare MQTT connection subscribed to its tasks. */
  async function rawPhone(): Promise<{ id: string; client: MqttClient }> {
    const { device, token } = await fx.registerDevice('raw phone');
    const client = await rawDevice(fx.gateway.mqttPort, device.id, token);
    fx.onCleanup(() => client.endAsync(true));
    return { id: device.id, client };
  }

  describe('when the SMS is pending and no device is online', () => {
    it('then it answers 200 with the SMS, status failed_send and reason "cancelled"', async () => {
      const sms = await createSms(fx.tenant);
      const reply = await cancel(fx.tenant, sms.id);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body).to.include({ id: sms.id, status: 'failed_send', reason: 'cancelled', message: sms.message, phone: PHONE });
      expect(new Date(reply.body.updated_at).getTime()).to.be.at.least(new Date(sms.updated_at).getTime());
    });

    it('then GET shows it failed_send, reason cancelled, with a history ending in failed_send', async () => {
      const sms = await createSms(fx.tenant);
      expect((await cancel(fx.tenant, sms.id)).status).to.equal(200);
      const read = await fx.tenant.api.get(`/sms/${sms.id}`);
      expect(read.status).to.equal(200);
      expect(read.body).to.include({ status: 'failed_send', reason: 'cancelled' });
      expect(internalStatuses(read.body)).to.deep.equal(['pending', 'failed_send']);
      const last = read.body.history.at(-1);
      expect(last).to.include({ status: 'failed_send', source: 'api' });
    });

    it('then GET /sms?status=failed_send lists it, and status=pending no longer does', async () => {
      const sms = await createSms(fx.tenant);
      await cancel(fx.tenant, sms.id);
      const failed = await fx.tenant.api.get('/sms?status=failed_send');
      expect(failed.body.data.map((each: { id: string }) => each.id)).to.deep.equal([sms.id]);
      const pending = await fx.tenant.api.get('/sms?status=pending');
      expect(pending.body.data).to.have.length(0);
    });

    it('then an SMS named for an offline device can be cancelled too', async () => {
      const { device } = await fx.registerDevice('offline phone');
      const sms = await createSms(fx.tenant, { device_id: device.id });
      const reply = await cancel(fx.tenant, sms.id);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body).to.include({ status: 'failed_send', reason: 'cancelled', device_id: device.id });
    });

    it('then a scheduled SMS (send_at in the future) can be cancelled', async () => {
      const sms = await createSms(fx.tenant, { send_at: new Date(Date.now() + 3_600_000).toISOString() });
      const reply = await cancel(fx.tenant, sms.id);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body).to.include({ status: 'failed_send', reason: 'cancelled' });
    });
  });

  describe('when the SMS was already cancelled', () => {
    it('then cancelling again answers 200 with the same SMS', async () => {
      const sms = await createSms(fx.tenant);
      const first = await cancel(fx.tenant, sms.id);
      expect(first.status).to.equal(200);
      const again = await cancel(fx.tenant, sms.id);
      expect(again.status, JSON.stringify(again.body)).to.equal(200);
      expect(again.body).to.deep.equal(first.body);
    });

    it('then cancelling again adds nothing to the history', async () => {
      const sms = await createSms(fx.tenant);
      await cancel(fx.tenant, sms.id);
      await cancel(fx.tenant, sms.id);
      const read = await fx.tenant.api.get(`/sms/${sms.id}`);
      expect(internalStatuses(read.body)).to.deep.equal(['pending', 'failed_send']);
    });
  });

  describe('when a phone was handed the task but has not acknowledged it', () => {
    it('then it can still be cancelled (200, failed_send, cancelled)', async () => {
      const phone = await rawPhone();
      const task = nextMessage(phone.client, deviceTopic(phone.id, 'tasks'));
      const sms = await createSms(fx.tenant);
      expect(JSON.parse((await task).toString()).sms_id).to.equal(sms.id);
      const reply = await cancel(fx.tenant, sms.id);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body).to.include({ status: 'failed_send', reason: 'cancelled' });
    });
  });

  describe('when a phone has taken the SMS (reported processing)', () => {
    async function taken(): Promise<any> {
      const phone = await rawPhone();
      const task = nextMessage(phone.client, deviceTopic(phone.id, 'tasks'));
      const sms = await createSms(fx.tenant);
      expect(JSON.parse((await task).toString()).sms_id).to.equal(sms.id);
      await phone.client.publishAsync(deviceTopic(phone.id, 'status'), JSON.stringify({ sms_id: sms.id, status: 'processing' }), { qos: 2 });
      // The Extended status folds processing into pending: the history shows it taken.
      await eventually('the SMS taken by the phone', async () => {
        const read = await fx.tenant.api.get(`/sms/${sms.id}`);
        return internalStatuses(read.body).at(-1) === 'processing' ? true : undefined;
      });
      return sms;
    }

    it('then it answers 409 already_taken', async () => {
      const sms = await taken();
      expectError(await cancel(fx.tenant, sms.id), 409, 'already_taken');
    });

    it('then the SMS is left as it was', async () => {
      const sms = await taken();
      await cancel(fx.tenant, sms.id);
      const read = await fx.tenant.api.get(`/sms/${sms.id}`);
      expect(read.body).to.include({ status: 'pending', reason: null });
      expect(internalStatuses(read.body)).to.deep.equal(['pending', 'processing']);
    });
  });

  describe('when the SMS was delivered', () => {
    it('then it answers 409', async () => {
      const { device, token } = await fx.registerDevice('fast phone');
      const phone = simulatedFor(fx.gateway, device, token);
      fx.track(phone);
      await phone.connect();
      const delivered = deliveries(phone, 1);
      const sms = await createSms(fx.tenant);
      await delivered;
      const reply = await cancel(fx.tenant, sms.id);
      expectError(reply, 409);
      const read = await fx.tenant.api.get(`/sms/${sms.id}`);
      expect(read.body.status).to.equal('delivered');
    });
  });

  describe('when the SMS does not exist for this account', () => {
    it('then an unknown id answers 404 sms_not_found', async () => {
      expectError(await cancel(fx.tenant, UNKNOWN_ID), 404, 'sms_not_found');
    });

    it('then another account\'s SMS answers 404 and stays pending', async () => {
      const other = await fx.newTenant();
      const theirs = await createSms(other);
      expectError(await cancel(fx.tenant, theirs.id), 404, 'sms_not_found');
      const read = await other.api.get(`/sms/${theirs.id}`);
      expect(read.body).to.include({ status: 'pending', reason: null });
    });

    for (const id of MALFORMED_IDS.slice(0, 3)) {
      it(`then a malformed id (${id}) answers 400 invalid_id`, async () => {
        expectError(await fx.tenant.api.post(`/sms/${encodeURIComponent(id)}/cancel`), 400, 'invalid_id');
      });
    }
  });

  describe('when the key lacks sms:send', () => {
    it('then it answers 403 and the SMS stays pending', async () => {
      const sms = await createSms(fx.tenant);
      const reader = await fx.keyWith(['sms:read']);
      expectError(await reader.post(`/sms/${sms.id}/cancel`), 403, 'forbidden');
      const read = await fx.tenant.api.get(`/sms/${sms.id}`);
      expect(read.body).to.include({ status: 'pending', reason: null });
    });

    it('then a key with sms:send alone may cancel', async () => {
      const sms = await createSms(fx.tenant);
      const sender = await fx.keyWith(['sms:send']);
      const reply = await sender.post(`/sms/${sms.id}/cancel`);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    });
  });

  describe('when a device connects after an SMS was cancelled', () => {
    it('then the cancelled SMS is never handed to it, while a later SMS is delivered', async () => {
      const cancelled = await createSms(fx.tenant, { message: 'cancelled one' });
      expect((await cancel(fx.tenant, cancelled.id)).status).to.equal(200);
      const later = await createSms(fx.tenant, { message: 'sent one' });

      const { device, token } = await fx.registerDevice('late phone');
      const patched = await fx.tenant.api.patch(`/devices/${device.id}/settings`, UNPACED);
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      const phone = simulatedFor(fx.gateway, device, token);
      fx.track(phone);
      const tasks: string[] = [];
      phone.on('task', (task) => tasks.push(task.sms_id));
      const delivered = deliveries(phone, 1);
      await phone.connect();

      expect(await delivered).to.deep.equal([later.id]);
      expect(tasks).not.to.include(cancelled.id);
      expect(phone.handled.has(cancelled.id)).to.equal(false);
      const read = await fx.tenant.api.get(`/sms/${cancelled.id}`);
      expect(read.body).to.include({ status: 'failed_send', reason: 'cancelled', device_id: null });
    });

    it('then a cancelled SMS named for that device is never handed to it either', async () => {
      const { device, token } = await fx.registerDevice('named phone');
      const patched = await fx.tenant.api.patch(`/devices/${device.id}/settings`, UNPACED);
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      const cancelled = await createSms(fx.tenant, { message: 'named, cancelled', device_id: device.id });
      expect((await cancel(fx.tenant, cancelled.id)).status).to.equal(200);
      const later = await createSms(fx.tenant, { message: 'named, sent', device_id: device.id });

      const phone = simulatedFor(fx.gateway, device, token);
      fx.track(phone);
      const tasks: string[] = [];
      phone.on('task', (task) => tasks.push(task.sms_id));
      const delivered = deliveries(phone, 1);
      await phone.connect();

      expect(await delivered).to.deep.equal([later.id]);
      expect(tasks).not.to.include(cancelled.id);
    });
  });
});

describe('POST /api/ext/v1/sms/{id}/cancel: an SMS that expired', () => {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const fx = useGateway({ clock });


  it('when its ttl ran out before a phone took it, then cancelling answers 409 already_final', async () => {
    const sms = await createSms(fx.tenant, { ttl: 60 });
    clock.advance(61_000);
    await fx.gateway.services.dispatcher.sweep();
    const read = await fx.tenant.api.get(`/sms/${sms.id}`);
    expect(read.body, 'expired by the sweep').to.include({ status: 'failed_send', reason: 'expired' });

    expectError(await cancel(fx.tenant, sms.id), 409, 'already_final');
    const after = await fx.tenant.api.get(`/sms/${sms.id}`);
    expect(after.body).to.include({ status: 'failed_send', reason: 'expired' });
  });
});
