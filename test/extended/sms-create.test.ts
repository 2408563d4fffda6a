// POST /api/ext/v1/sms: the SMS stored and readable, the 170-character limit, phone validation,
// device_id handling and no_store. Delivery is by pull: an SMS without device_id is stored
// unassigned, and a ready device claims it right after.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { registerDevice } from '../support/tenant.ts';
import { expectSms } from '../support/expectations.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';
import { nextTask, takeTasks, tasksOf, type RawClient } from '../support/mqtt.ts';
import { allSmsCount, allStatusHistoryCount } from '../support/test-data.ts';

const PHONE = '+79161234567';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /api/ext/v1/sms', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });


  /** A device online over raw MQTT, taking tasks and never reporting: each task it takes stays in flight. */
  async function readyDevice(name: string): Promise<{ id: string; mqtt: RawClient }> {
    const { device, token } = await fx.registerDevice(name);
    const mqtt = await fx.clients.device(device.id, token);
    await takeTasks(mqtt, device.id);
    return { id: device.id, mqtt };
  }

  function countRows(table: 'sms' | 'sms_status_history'): Promise<number> {
    return table === 'sms' ? allSmsCount(fx) : allStatusHistoryCount(fx);
  }

  describe('when the request is valid', () => {
    it('then it answers 201 with the SMS object, status pending', async () => {
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'Hello' });
      expect(reply.status).to.equal(201);
      expectSms(reply.body);
      expect(reply.body.id).to.match(UUID);
      expect(reply.body).to.include({ phone: PHONE, message: 'Hello', status: 'pending', device_id: null });
      // Not scheduled, never expiring, normal priority, one GSM 7-bit part, no failure.
      expect(reply.body).to.include({ reason: null, send_at: null, valid_until: null, priority: 0, segments: 1, encoding: 'gsm7' });
      expect(new Date(reply.body.sent_at).toISOString()).to.equal(reply.body.sent_at);
    });

    it('then the SMS is stored and readable', async () => {
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'stored' });
      const read = await fx.tenant.api.get(`/sms/${created.body.id}`);
      expect(read.status).to.equal(200);
      expect(read.body).to.include({ id: created.body.id, message: 'stored', status: 'pending' });
      expect(read.body.history.map((entry: { status: string }) => entry.status)).to.deep.equal(['pending']);
    });

    it('then a phone number written with spaces and dashes is stored in E.164', async () => {
      const reply = await fx.tenant.api.post('/sms', { phone: '+7 (916) 123-45-67', message: 'x' });
      expect(reply.status).to.equal(201);
      expect(reply.body.phone).to.equal(PHONE);
    });
  });

  describe('when the message is at the 170-character limit', () => {
    const cases: [string, string][] = [
      ['Latin', 'a'.repeat(170)],
      ['Cyrillic', 'ж'.repeat(170)],
      ['emoji with a skin tone', '👍🏽'.repeat(170)],
      ['flags', '🇷🇺'.repeat(170)],
      ['letters with combining accents', 'e\u0301'.repeat(170)],
    ];
    for (const [alphabet, message] of cases) {
      it(`then 170 characters of ${alphabet} are accepted`, async () => {
        const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
        expect(reply.body.message).to.equal(message);
      });
      it(`then 171 characters of ${alphabet} are refused with "message must not exceed 170 characters"`, async () => {
        const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: message + [...new Intl.Segmenter().segment(message)][0]!.segment });
        expect(reply.status).to.equal(400);
        expect(reply.body.error.code).to.equal('message_too_long');
        expect(reply.body.error.message).to.equal('message must not exceed 170 characters');
      });
    }

    it('then one letter with 32,000 combining accents, one character but hundreds of SMS parts, is refused as too long', async () => {
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'a' + '\u0301'.repeat(32_000) });
      expect(reply.status, JSON.stringify(reply.body).slice(0, 300)).to.equal(400);
      expect(reply.body.error.code).to.equal('message_too_long');
    });
  });

  describe('when a field is missing, of the wrong type, or unknown', () => {
    const cases: [string, unknown, string][] = [
      ['phone missing', { message: 'x' }, 'phone'],
      ['message missing', { phone: PHONE }, 'message'],
      ['message empty', { phone: PHONE, message: '' }, 'message'],
      ['phone a number', { phone: 79161234567, message: 'x' }, 'phone'],
      ['message an object', { phone: PHONE, message: { text: 'x' } }, 'message'],
      ['no_store a string', { phone: PHONE, message: 'x', no_store: 'yes' }, 'no_store'],
      ['an unknown field', { phone: PHONE, message: 'x', colour: 'red' }, 'colour'],
      ['priority over 100', { phone: PHONE, message: 'x', priority: 101 }, 'priority'],
      ['priority a string', { phone: PHONE, message: 'x', priority: 'high' }, 'priority'],
      ['device_id not a UUID', { phone: PHONE, message: 'x', device_id: 'phone-1' }, 'device_id'],
      ['a JSON array body', [], 'body'],
    ];
    for (const [name, body, field] of cases) {
      it(`then ${name} is a 400 naming ${field}`, async () => {
        const reply = await fx.tenant.api.post('/sms', body);
        expect(reply.status).to.equal(400);
        expect(reply.body.error.code).to.equal('validation_failed');
        expect(reply.body.error.details.map((d: { field: string }) => d.field)).to.include(field);
        expect(reply.body.error.message).to.be.a('string').and.not.empty;
      });
    }
  });

  describe('when the phone number is not a valid number', () => {
    for (const phone of ['12345', '+7916', 'not a phone', '+999123456789', '+7916123456789012']) {
      it(`then "${phone}" is a 400 invalid_phone naming phone`, async () => {
        const reply = await fx.tenant.api.post('/sms', { phone, message: 'x' });
        expect(reply.status).to.equal(400);
        expect(reply.body.error.code).to.equal('invalid_phone');
        expect(reply.body.error.details[0].field).to.equal('phone');
      });
    }
  });

  describe('when device_id names a device', () => {
    it('then an unknown device is a 404', async () => {
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: '00000000-0000-4000-8000-000000000000' });
      expect(reply.status).to.equal(404);
      expect(reply.body.error.code).to.equal('device_not_found');
    });

    it("then another account's device is a 404, not a 403", async () => {
      const other = await fx.newTenant();
      const { device } = await registerDevice(fx.gateway, other);
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: device.id });
      expect(reply.status).to.equal(404);
    });

    it('then a device that may not send is a 409 saying so', async () => {
      const { device } = await fx.registerDevice();
      await fx.tenant.api.patch(`/devices/${device.id}/settings`, { can_send_sms: false });
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: device.id });
      expect(reply.status).to.equal(409);
      expect(reply.body.error.code).to.equal('device_cannot_send');
      expect(reply.body.error.message).to.contain('can_send_sms');
    });

    it('then an offline device is still assigned and the SMS waits for it', async () => {
      const { device } = await fx.registerDevice();
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: device.id });
      expect(reply.status).to.equal(201);
      expect(reply.body).to.include({ device_id: device.id, status: 'pending' });
    });

    it('then an online device is answered as assigned, and only it takes the SMS', async () => {
      const named = await readyDevice('named');
      const other = await readyDevice('other');
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: named.id });
      expect(reply.status).to.equal(201);
      expect(reply.body).to.include({ device_id: named.id, status: 'pending' });
      await nextTask(named.mqtt, named.id, reply.body.id);
      expect(tasksOf(other.mqtt, other.id), 'the other device took nothing').to.deep.equal([]);
    });
  });

  describe('when sim_slot and callback_id are given (as the legacy to_sim and callback_id)', () => {
    it('then the SMS shows them, and the phone is told to send from that slot', async () => {
      const named = await readyDevice('dual-sim');
      const webhook = await createWebhook(fx.tenant, 'http://127.0.0.1:9/hook', ['sms.status_changed']);
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', device_id: named.id, sim_slot: 1, callback_id: webhook.webhook.id });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body).to.include({ sim_slot: 1, callback_id: webhook.webhook.id });
      const task = await nextTask(named.mqtt, named.id, reply.body.id);
      expect(task.sim).to.equal(1);
    });

    it('then without them both are null, and "" as callback_id is none', async () => {
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', callback_id: '' });
      expect(reply.status).to.equal(201);
      expect(reply.body).to.include({ sim_slot: null, callback_id: null });
    });

    it('then a callback_id that names no webhook of the account, or a slot out of range, is a 400 on that field', async () => {
      const other = await fx.newTenant();
      const theirs = await createWebhook(other, 'http://127.0.0.1:9/hook', ['sms.status_changed']);
      const unknown = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', callback_id: theirs.webhook.id });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.error.code).to.equal('unknown_callback');
      expect(unknown.body.error.details[0].field).to.match(/callback_id$/);
      const slot = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', sim_slot: 3 });
      expect(slot.status).to.equal(400);
      expect(slot.body.error.details[0].field).to.match(/sim_slot$/);
    });
  });

  describe('when no device_id is given', () => {
    it('then with no device online the SMS is stored unassigned', async () => {
      await fx.registerDevice();
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x' });
      expect(reply.status).to.equal(201);
      expect(reply.body.device_id).to.equal(null);
    });

    it('then with a device online the answer is still unassigned, and the device claims the SMS right after', async () => {
      const phone = await readyDevice('online');
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'pull me' });
      expect(reply.status).to.equal(201);
      expect(reply.body).to.include({ device_id: null, status: 'pending' });
      const task = await nextTask(phone.mqtt, phone.id, reply.body.id);
      expect(task).to.include({ phone: PHONE, message: 'pull me' });
      expect((await fx.tenant.api.get(`/sms/${reply.body.id}`)).body).to.include({ device_id: phone.id, status: 'pending' });
    });

    it('then the least busy online device that may send claims it, taking turns among equals', async () => {
      const a = await readyDevice('a');
      const b = await readyDevice('b');
      const muted = await readyDevice('muted');
      await fx.registerDevice('offline');
      await fx.tenant.api.patch(`/devices/${muted.id}/settings`, { can_send_sms: false });
      const online = [a, b, muted];

      /** Creates an SMS without device_id and resolves with the device whose task it became. */
      const claimant = async (message: string, named?: string): Promise<string> => {
        const created = await fx.tenant.api.post('/sms', { phone: PHONE, message, ...(named ? { device_id: named } : {}) });
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        expect(created.body.device_id).to.equal(named ?? null);
        await Promise.any(online.map((device) => nextTask(device.mqtt, device.id, created.body.id)));
        const read = await fx.tenant.api.get(`/sms/${created.body.id}`);
        return read.body.device_id as string;
      };

      // Load a with two SMS: b must take the next two, then they are equal and take turns.
      expect(await claimant('for a 1', a.id)).to.equal(a.id);
      expect(await claimant('for a 2', a.id)).to.equal(a.id);
      const chosen: string[] = [];
      for (let i = 0; i < 6; i++) chosen.push(await claimant(`pool ${i}`));
      expect(chosen.slice(0, 2)).to.deep.equal([b.id, b.id]);
      expect(new Set(chosen.slice(2, 4))).to.deep.equal(new Set([a.id, b.id]));
      expect(new Set(chosen.slice(4, 6))).to.deep.equal(new Set([a.id, b.id]));
      expect(chosen).not.to.include(muted.id);
      expect(chosen.filter((id) => id === a.id)).to.have.length(2);
      expect(tasksOf(muted.mqtt, muted.id), 'a device that may not send takes nothing').to.deep.equal([]);
    });
  });

  describe('when no_store is true', () => {
    it('then with no online device it answers 503 and stores nothing', async () => {
      const before = [await countRows('sms'), await countRows('sms_status_history')];
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'secret', no_store: true });
      expect(reply.status).to.equal(503);
      expect(reply.body.error.code).to.equal('no_device_available');
      expect([await countRows('sms'), await countRows('sms_status_history')]).to.deep.equal(before);
    });

    it('then with an online device it answers 201 with the SMS object, naming the device it was handed to, and writes no row', async () => {
      const phone = await readyDevice('online');
      const before = [await countRows('sms'), await countRows('sms_status_history')];
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'secret', no_store: true });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expectSms(reply.body);
      // Handed over at once (there is no queue to wait in), so the answer names the device.
      expect(reply.body).to.include({ device_id: phone.id, status: 'pending', message: 'secret' });
      await nextTask(phone.mqtt, phone.id, reply.body.id);
      expect([await countRows('sms'), await countRows('sms_status_history')]).to.deep.equal(before);
      expect((await fx.tenant.api.get(`/sms/${reply.body.id}`)).status).to.equal(404);
    });

    it('then with only a device that may not send online it answers 503 and stores nothing', async () => {
      const muted = await readyDevice('muted');
      await fx.tenant.api.patch(`/devices/${muted.id}/settings`, { can_send_sms: false });
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'secret', no_store: true });
      expect(reply.status).to.equal(503);
      expect(reply.body.error.code).to.equal('no_device_available');
      expect(tasksOf(muted.mqtt, muted.id)).to.deep.equal([]);
    });
  });

  describe('when the key lacks sms:send', () => {
    it('then it answers 403', async () => {
      const reader = await fx.keyWith(['sms:read']);
      const reply = await reader.post('/sms', { phone: PHONE, message: 'x' });
      expect(reply.status).to.equal(403);
      expect(reply.body.error.code).to.equal('forbidden');
    });
  });
});
