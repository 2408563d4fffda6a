// Data SMS: a binary payload (base64 in the API, 1-133 bytes: one SMS beside its port header) for an application port. POST
// /sms/data stores it as an SMS of kind data, the task carries data and port to a real MQTT phone
// (the device agent), whose radio gets the very bytes and port; statuses, webhooks, cancel and
// Idempotency-Key work as for any SMS. Bad base64, too many bytes or a bad port are 400, and POST
// /sms still refuses these fields.
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { useGateway } from '../support/use-gateway.ts';
import { liftLimits } from '../support/devices.ts';
import { expectError } from '../support/expectations.ts';
import { createWebhook, dropWebhooks, verified, webhookConfig } from '../support/webhooks.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { smsRow, smsRowsOf } from '../support/test-data.ts';

const PHONE = '+79161234567';

describe('data SMS', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });
  afterEach(async () => dropWebhooks(fx.gateway, [fx.tenant.accountId]));

  async function phone(): Promise<SimulatedDevice> {
    const device = await fx.connectDevice();
    await liftLimits(fx.gateway, fx.tenant, device.id);
    return device;
  }

  function reported(device: SimulatedDevice, status: string): Promise<string> {
    return new Promise((resolve) => {
      const listener = (smsId: string, reportedStatus: string) => {
        if (reportedStatus !== status) return;
        device.off('report', listener);
        resolve(smsId);
      };
      device.on('report', listener);
    });
  }

  it('reaches the phone\'s radio with its bytes and port intact, and is delivered', async () => {
    const receiver = await fx.receiver();
    const { secret } = await createWebhook(fx.tenant, receiver.url, ['sms.status_changed']);
    const device = await phone();
    // Every byte value a payload may hold, the most one SMS carries.
    const bytes = Buffer.from(Array.from({ length: 133 }, (_, index) => (index * 37 + 255) % 256));
    const delivered = reported(device, 'delivered');
    const reply = await fx.tenant.api.post('/sms/data', { phone: PHONE, data: bytes.toString('base64'), port: 2948 });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    expect(reply.body).to.include({ phone: PHONE, message: '', kind: 'data', data: bytes.toString('base64'), port: 2948, segments: 1, encoding: null, status: 'pending' });
    expect(reply.body).to.not.have.property('is_encrypted');
    expect(await delivered).to.equal(reply.body.id);

    const sent = device.sent.get(reply.body.id)!;
    expect(sent.phone).to.equal(PHONE);
    expect(sent.message).to.equal('');
    expect(sent.data!.port).to.equal(2948);
    expect(sent.data!.bytes.equals(bytes)).to.equal(true);
    expect(device.agent.journal.tasks.get(reply.body.id)!.task).to.include({ data: bytes.toString('base64'), port: 2948 });

    const row = await smsRow(fx, reply.body.id);
    expect(row).to.include({ kind: 'data', data: bytes.toString('base64'), data_port: 2948, message: '', status: 'delivered' });
    const read = await fx.tenant.api.get(`/sms/${reply.body.id}`);
    expect(read.body).to.include({ status: 'delivered', kind: 'data', port: 2948 });

    const requests = await receiver.waitFor(3, (request) => request.json?.data?.sms?.id === reply.body.id);
    expect(requests.map((request) => verified(secret, request).data.sms.kind)).to.deep.equal(['data', 'data', 'data']);
  });

  it('takes Idempotency-Key, device_id and scheduling like POST /sms, and can be cancelled', async () => {
    const device = await fx.registerDevice();
    const body = { phone: PHONE, data: 'AAECAw==', port: 16001, device_id: device.device.id, send_at: new Date(Date.now() + 3_600_000).toISOString() };
    const key = `data-${randomUUID()}`;
    const first = await fx.tenant.api.request('POST', '/sms/data', body, { 'idempotency-key': key });
    const again = await fx.tenant.api.request('POST', '/sms/data', body, { 'idempotency-key': key });
    expect(first.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect(first.body).to.include({ device_id: device.device.id, send_at: body.send_at });
    const cancelled = await fx.tenant.api.post(`/sms/${first.body.id}/cancel`);
    expect(cancelled.body).to.include({ status: 'failed_send', reason: 'cancelled', kind: 'data' });
  });

  describe('answers 400 and stores nothing', () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['data that is not base64', { data: 'not base64!', port: 80 }, 'invalid_data', 'standard base64'],
      ['URL-safe base64', { data: 'AA-_', port: 80 }, 'invalid_data', 'standard base64'],
      ['base64 without its padding', { data: 'AAECAw', port: 80 }, 'invalid_data', 'standard base64'],
      ['more than 133 bytes', { data: randomBytes(134).toString('base64'), port: 80 }, 'invalid_data', '134 bytes'],
      ['empty data', { data: '', port: 80 }, 'validation_failed', 'data'],
      ['port 0', { data: 'AAEC', port: 0 }, 'validation_failed', 'port'],
      ['port 65536', { data: 'AAEC', port: 65536 }, 'validation_failed', 'port'],
      ['a port that is not an integer', { data: 'AAEC', port: '80' }, 'validation_failed', 'port'],
      ['no port', { data: 'AAEC' }, 'validation_failed', 'port'],
      ['a message beside the data', { data: 'AAEC', port: 80, message: 'hi' }, 'validation_failed', 'message'],
      ['a recipient that is no number', { data: 'AAEC', port: 80, phone: 'nobody' }, 'invalid_phone', 'phone'],
    ];
    for (const [what, body, code, says] of cases) {
      it(`for ${what}`, async () => {
        const reply = await fx.tenant.api.post('/sms/data', { phone: PHONE, ...body });
        expectError(reply, 400, code);
        expect(JSON.stringify(reply.body.error)).to.contain(says);
        expect(await smsRowsOf(fx, fx.tenant.accountId)).to.deep.equal([]);
      });
    }
  });

  it('keeps POST /sms as it is: data and port are unknown fields there', async () => {
    expectError(await fx.tenant.api.post('/sms', { phone: PHONE, message: 'hi', data: 'AAEC', port: 80 }), 400, 'validation_failed');
  });
});
