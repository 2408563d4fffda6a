// SMS a phone receives may reach the gateway end-to-end encrypted (the agent with a passphrase
// and encryptIncoming): stored as they came, with is_encrypted on the row, in GET /incoming and
// in the sms.received webhook; the client opens them with the passphrase. A payload that says
// is_encrypted but is not in the format, or a sender in clear past 64 characters, is refused.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { decrypt, encrypt } from '../../src/common/end-to-end.ts';
import { useGateway } from '../support/use-gateway.ts';
import { createWebhook, dropWebhooks, verified, webhookConfig } from '../support/webhooks.ts';
import { registerDevice } from '../support/tenant.ts';
import { topic } from '../support/mqtt.ts';
import { incomingRowsOf } from '../support/test-data.ts';

const PASSPHRASE = 'shared by the client and its phones';
const SENDER = '+79005550101';
const REJECTED = 'device_messages_rejected_total';

describe('end-to-end encrypted incoming SMS', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });
  afterEach(async () => dropWebhooks(fx.gateway, [fx.tenant.accountId]));

  async function forwarding(deviceId: string): Promise<void> {
    const reply = await fx.tenant.api.patch(`/devices/${deviceId}/settings`, { forward_incoming_sms: true });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  }

  it('is stored as the phone encrypted it, shown and passed on with is_encrypted, and opens with the passphrase', async () => {
    const receiver = await fx.receiver();
    const { secret } = await createWebhook(fx.tenant, receiver.url, ['sms.received']);
    const device = await fx.connectDevice({ passphrase: PASSPHRASE, encryptIncoming: true });
    await forwarding(device.id);
    await device.receive(SENDER, 'meet at 7, door code 2580');

    const [row] = await incomingRowsOf(fx, fx.tenant.accountId);
    expect(row!.is_encrypted).to.equal(true);
    // The words, not the digits alone: four digits can turn up in an id by chance.
    expect(JSON.stringify(row)).to.not.contain('door code').and.not.contain(SENDER);
    expect(await decrypt(row.phone, PASSPHRASE)).to.equal(SENDER);
    expect(await decrypt(row.message, PASSPHRASE)).to.equal('meet at 7, door code 2580');

    const listed = (await fx.tenant.api.get('/incoming')).body.data;
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({ id: row.id, phone: row.phone, message: row.message, is_encrypted: true });

    const [request] = await receiver.waitFor(1, (received) => received.json?.type === 'sms.received');
    expect(verified(secret, request!).data.sms).to.include({ id: row.id, phone: row.phone, message: row.message, is_encrypted: true });
  });

  it('keeps a plain received SMS as it always was: no is_encrypted member anywhere', async () => {
    const device = await fx.connectDevice({ passphrase: PASSPHRASE });
    await forwarding(device.id);
    await device.receive(SENDER, 'plain hello');
    const [listed] = (await fx.tenant.api.get('/incoming')).body.data;
    expect(listed).to.include({ phone: SENDER, message: 'plain hello' });
    expect(listed).to.not.have.property('is_encrypted');
  });

  it('refuses (and counts) an incoming SMS that says is_encrypted but is not in the format, and a sender in clear past 64 characters', async () => {
    const { device, token } = await registerDevice(fx.gateway, fx.tenant);
    await forwarding(device.id);
    const mqtt = await fx.clients.device(device.id, token);
    const counted = () => fx.gateway.services.metrics.value(REJECTED, { reason: 'invalid_payload' });
    const before = counted();
    const base = { received_at: new Date().toISOString(), sim_slot: 0 };
    await mqtt.publish(topic(device.id, 'incoming'), JSON.stringify({ ...base, id: randomUUID(), phone: SENDER, message: 'clear', is_encrypted: true }), { qos: 2 });
    await mqtt.publish(topic(device.id, 'incoming'), JSON.stringify({ ...base, id: randomUUID(), phone: '1'.repeat(65), message: 'clear' }), { qos: 2 });
    expect(counted()).to.equal(before + 2);
    // Ciphertext in the format is taken, whoever made it.
    const phone = await encrypt(SENDER, 'any');
    const message = await encrypt('x', 'any');
    await mqtt.publish(topic(device.id, 'incoming'), JSON.stringify({ ...base, id: randomUUID(), phone, message, is_encrypted: true }), { qos: 2 });
    const rows = await incomingRowsOf(fx, fx.tenant.accountId);
    expect(rows.map((row: { phone: string; is_encrypted: boolean }) => [row.phone, row.is_encrypted])).to.deep.equal([[phone, true]]);
    expect(mqtt.closed).to.equal(false);
  });
});
