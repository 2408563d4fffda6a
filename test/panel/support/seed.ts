// Something for every panel page to show: a phone that reports at once, SMS it delivered, a
// message it received, a missed and a recorded call, a webhook with deliveries, and a key; all in the test's tenant, made
// through the API and the phone as a real client would.
import { expect } from 'chai';
import type { SimulatedDevice } from '../../../src/simulator/device.ts';
import type { GatewayFixture } from '../../support/use-gateway.ts';
import { createWebhook } from '../../support/webhooks.ts';
import { eventually } from '../../support/eventually.ts';

export interface Seeded {
  phone: SimulatedDevice;
  deviceId: string;
  smsIds: string[];
  webhookId: string;
}

/** A connected phone whose reports come at once (processing, sent, delivered). */
export async function quickPhone(fx: GatewayFixture, name = 'Front desk phone'): Promise<SimulatedDevice> {
  // apiUrl: where it uploads call recordings.
  return fx.connectDevice({ name, apiUrl: fx.baseUrl, delays: { processing: 0, sent: 0, delivered: 0 }, simCards: [{ index: 0, name_operator: 'Test Mobile' }] });
}

/** Resolves once GET /sms/{id} says `status`. */
export async function smsReaches(fx: GatewayFixture, id: string, status: string): Promise<void> {
  await eventually(`SMS ${id} ${status}`, async () => ((await fx.tenant.api.get(`/sms/${id}`)).body.status === status ? true : undefined));
}

/** Needs a gateway whose webhook config allows 127.0.0.1 (webhookConfig()). */
export async function seedAccount(fx: GatewayFixture): Promise<Seeded> {
  const phone = await quickPhone(fx);
  const receiver = await fx.receiver();
  const { webhook } = await createWebhook(fx.tenant, receiver.url, ['sms.status_changed', 'sms.received']);
  const smsIds: string[] = [];
  for (const [index, number] of ['+12025550101', '+12025550102', '+12025550103'].entries()) {
    const reply = await fx.tenant.api.post('/sms', { phone: number, message: `Seeded message ${index + 1}` });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    smsIds.push(reply.body.id);
  }
  for (const id of smsIds) await smsReaches(fx, id, 'delivered');
  // Phones forward what they receive only while forward_incoming_sms is on.
  expect((await fx.tenant.api.patch(`/devices/${phone.options.deviceId}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
  await phone.receive('+12025550199', 'A reply from a customer');
  await eventually('the incoming SMS stored', async () => ((await fx.tenant.api.get('/incoming')).body.data.length > 0 ? true : undefined));
  await recordedCalls(fx, phone);
  expect((await fx.tenant.api.post('/keys', { name: 'Seeded key', permissions: ['sms:read'] })).status).to.equal(201);
  return { phone, deviceId: phone.options.deviceId, smsIds, webhookId: webhook.id };
}

/** A missed call and an answered one with its recording (record_calls on), for the call log. */
export async function recordedCalls(fx: GatewayFixture, phone: SimulatedDevice): Promise<void> {
  const settingsArrived = new Promise<void>((resolve) => phone.once('settings', () => resolve()));
  expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { record_calls: true })).status).to.equal(200);
  await settingsArrived;
  await phone.makeCall({ direction: 'missed', phone: '+12025550198' });
  expect((await phone.makeCall({ direction: 'incoming', phone: '+12025550197', durationSeconds: 2 })).uploaded).to.equal(201);
}
