// End-to-end encrypted SMS: the client encrypts the recipient and the text with a passphrase
// only it and its phones know; POST /sms/encrypted stores the ciphertext as it is, the broker
// hands it to a real MQTT phone (the device agent), which decrypts it and sends it. The gateway
// never holds the plaintext; a phone with another passphrase reports failed_send with
// decryption_failed; ciphertext out of the format is 400; POST /sms keeps refusing these fields.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { decrypt, encrypt } from '../../src/common/end-to-end.ts';
import { useGateway } from '../support/use-gateway.ts';
import { liftLimits, nextEvent } from '../support/devices.ts';
import { expectError } from '../support/expectations.ts';
import { createWebhook, dropWebhooks, verified, webhookConfig } from '../support/webhooks.ts';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { heartbeatRecorded } from '../support/legacy.ts';
import { smsRow, smsRowsOf } from '../support/test-data.ts';

const PASSPHRASE = 'a passphrase only the client and its phones know';
const PHONE = '+79161234567';
const TEXT = 'The vault code is 4711 🔐';

describe('end-to-end encrypted SMS', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });
  afterEach(async () => dropWebhooks(fx.gateway, [fx.tenant.accountId]));

  async function phone(passphrase?: string): Promise<SimulatedDevice> {
    const device = await fx.connectDevice(passphrase === undefined ? {} : { passphrase });
    await liftLimits(fx.gateway, fx.tenant, device.id);
    return device;
  }

  async function sealed(phone = PHONE, text = TEXT) {
    return { phone: await encrypt(phone, PASSPHRASE), message: await encrypt(text, PASSPHRASE) };
  }

  /** Posts an encrypted SMS and resolves once the phone reported `status` for it. */
  async function sendThrough(device: SimulatedDevice, body: Record<string, unknown>, status: string) {
    const reported = new Promise<string>((resolve) => {
      const listener = (smsId: string, reportedStatus: string) => {
        if (reportedStatus !== status) return;
        device.off('report', listener);
        resolve(smsId);
      };
      device.on('report', listener);
    });
    const reply = await fx.tenant.api.post('/sms/encrypted', body);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    expect(await reported).to.equal(reply.body.id);
    return reply.body;
  }

  it('is stored as ciphertext, decrypted by the phone with the passphrase, sent and delivered', async () => {
    const device = await phone(PASSPHRASE);
    const body = { ...(await sealed()), device_id: device.id };
    const created = await sendThrough(device, body, 'delivered');
    expect(created).to.include({ phone: body.phone, message: body.message, is_encrypted: true, status: 'pending', segments: null, encoding: null });
    expect(created).to.not.have.property('kind');

    // What went out over the air is the plaintext, decrypted on the phone.
    const sent = device.sent.get(created.id)!;
    expect(sent).to.include({ phone: PHONE, message: TEXT });
    expect(device.sendCount.get(created.id)).to.equal(1);

    const read = await fx.tenant.api.get(`/sms/${created.id}`);
    expect(read.body).to.include({ status: 'delivered', is_encrypted: true, phone: body.phone, message: body.message });
    expect(read.body.history.map((entry: { internal_status: string }) => entry.internal_status)).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
  });

  it('leaves no plaintext in the database: the row holds the ciphertext the client sent, which opens with the passphrase', async () => {
    const device = await phone(PASSPHRASE);
    const body = await sealed();
    const created = await sendThrough(device, body, 'sent');
    const row = await smsRow(fx, created.id);
    expect(row).to.include({ phone: body.phone, message: body.message, is_encrypted: true, kind: 'text' });
    const everything = JSON.stringify(row);
    expect(everything).to.not.contain(PHONE);
    // Neither the text nor a piece of it: '4711' alone could turn up in an id or the ciphertext by chance.
    expect(everything).to.not.contain('vault code');
    expect(await decrypt(row.message, PASSPHRASE)).to.equal(TEXT);
    // The task that reached the phone carried the ciphertext too, marked encrypted.
    expect(device.agent.journal.tasks.get(created.id)!.task).to.include({ phone: body.phone, message: body.message, is_encrypted: true });
  });

  it('says is_encrypted in its sms.status_changed webhooks, with the ciphertext as phone and message', async () => {
    const receiver = await fx.receiver();
    const { secret } = await createWebhook(fx.tenant, receiver.url, ['sms.status_changed']);
    const device = await phone(PASSPHRASE);
    const body = await sealed();
    const created = await sendThrough(device, body, 'delivered');
    const requests = await receiver.waitFor(3, (request) => request.json?.data?.sms?.id === created.id);
    for (const request of requests) {
      const event = verified(secret, request);
      expect(event.data.sms).to.include({ id: created.id, is_encrypted: true, phone: body.phone, message: body.message });
    }
  });

  it('fails with decryption_failed on a phone whose passphrase does not open it, which sends nothing', async () => {
    const device = await phone('another passphrase');
    const created = await sendThrough(device, await sealed(), 'failed_send');
    expect(device.sendCount.get(created.id)).to.equal(undefined);
    const read = await fx.tenant.api.get(`/sms/${created.id}`);
    expect(read.body).to.include({ status: 'failed_send', reason: 'decryption_failed' });
  });

  it('is refused at once (409 no_capable_device) when the only phone says it holds no passphrase, rather than failing on it', async () => {
    const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'no passphrase');
    const recorded = heartbeatRecorded(fx.gateway, device.id);
    const simulated = new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${fx.gateway.mqttPort}`, deviceId: device.id, token, reconnectPeriodMs: 100 });
    fx.onCleanup(() => simulated.stop());
    await simulated.connect();
    await recorded;
    const reply = await fx.tenant.api.post('/sms/encrypted', await sealed());
    expect(reply.status).to.equal(409);
    expect(reply.body.error.code).to.equal('no_capable_device');
    expect(simulated.handled.size).to.equal(0);
  });

  it('replays the first answer for a repeated Idempotency-Key, creating one SMS', async () => {
    const body = await sealed();
    const key = `e2e-${randomUUID()}`;
    const first = await fx.tenant.api.request('POST', '/sms/encrypted', body, { 'idempotency-key': key });
    const again = await fx.tenant.api.request('POST', '/sms/encrypted', body, { 'idempotency-key': key });
    expect(first.status).to.equal(201);
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    const rows = await smsRowsOf(fx, fx.tenant.accountId);
    expect(rows.map((row: { id: string }) => row.id)).to.deep.equal([first.body.id]);
  });

  it('can be cancelled while no phone took it, and is listed like any SMS, but never found by its plaintext', async () => {
    const body = await sealed();
    const created = (await fx.tenant.api.post('/sms/encrypted', body)).body;
    const cancelled = await fx.tenant.api.post(`/sms/${created.id}/cancel`);
    expect(cancelled.body).to.include({ status: 'failed_send', reason: 'cancelled', is_encrypted: true });
    const list = await fx.tenant.api.get('/sms');
    expect(list.body.data.map((sms: { id: string }) => sms.id)).to.deep.equal([created.id]);
    expect((await fx.tenant.api.get('/sms?search=4711')).body.data).to.deep.equal([]);
    expect((await fx.tenant.api.get(`/sms?phone=${encodeURIComponent(PHONE)}`)).body.data).to.deep.equal([]);
  });

  describe('refuses what it cannot carry', () => {
    it('answers 400 invalid_ciphertext, naming the field, for a message or phone out of the format', async () => {
      const body = await sealed();
      const plainMessage = await fx.tenant.api.post('/sms/encrypted', { ...body, message: 'not encrypted at all' });
      expectError(plainMessage, 400, 'invalid_ciphertext');
      expect(plainMessage.body.error.details[0].field).to.equal('message');
      expect(plainMessage.body.error.message).to.contain('is not in the format $aes-256-gcm/pbkdf2-sha256$');

      const plainPhone = await fx.tenant.api.post('/sms/encrypted', { ...body, phone: PHONE });
      expectError(plainPhone, 400, 'invalid_ciphertext');
      expect(plainPhone.body.error.details[0].field).to.equal('phone');

      const cheap = await fx.tenant.api.post('/sms/encrypted', { ...body, message: body.message.replace('i=100000', 'i=1000') });
      expectError(cheap, 400, 'invalid_ciphertext');
      expect(cheap.body.error.message).to.contain('1000 iterations');
      expect(await smsRowsOf(fx, fx.tenant.accountId)).to.deep.equal([]);
    });

    it('answers 400 for ciphertext past its bound and for fields it does not take', async () => {
      const body = await sealed();
      expectError(await fx.tenant.api.post('/sms/encrypted', { ...body, message: `${body.message}${'A'.repeat(1024)}` }), 400, 'validation_failed');
      expectError(await fx.tenant.api.post('/sms/encrypted', { ...body, data: 'AAEC', port: 80 }), 400, 'validation_failed');
    });

    it('keeps POST /sms as it is: is_encrypted, data and port are unknown fields there', async () => {
      const body = await sealed();
      for (const extra of [{ is_encrypted: true }, { data: 'AAEC' }, { port: 2948 }, { kind: 'data' }]) {
        const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'hi', ...extra });
        expectError(reply, 400, 'validation_failed');
      }
      // And its phone check stands: ciphertext is no phone number.
      expectError(await fx.tenant.api.post('/sms', { phone: body.phone, message: 'hi' }), 400);
    });
  });
});
