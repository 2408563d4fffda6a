// What the opt-out tests share: a phone of the account that reports received SMS over MQTT (as the
// app does, QoS 2: resolved once the gateway committed it), and a key that sends the way an
// ordinary client does (without sms:send_transactional, so the suppression list applies).
import { randomUUID } from 'node:crypto';
import { deviceTopic } from '../../broker/topics.ts';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import type { GatewayFixture } from '../support/use-gateway.ts';
import { ApiClient, type Tenant } from '../support/tenant.ts';
import type { TaskPhone } from '../support/task-phone.ts';

export const ORDINARY = PERMISSIONS.filter((permission) => permission !== 'sms:send_transactional');

/** An Extended API client and a legacy client on a key without sms:send_transactional. */
export async function ordinaryClients(fx: GatewayFixture, tenant: Tenant = fx.tenant): Promise<{ api: ApiClient; root: ApiClient }> {
  const { key } = await fx.gateway.services.apiKeys.create(tenant.accountId, [...ORDINARY]);
  return { api: new ApiClient(tenant.api.baseUrl, key), root: new ApiClient(tenant.root.baseUrl, key) };
}

/** A phone that forwards received SMS and collects the tasks it is given. */
export function receivingPhone(fx: GatewayFixture, tenant: Tenant = fx.tenant): Promise<TaskPhone> {
  return fx.taskPhone({ forward_incoming_sms: true }, tenant);
}

/** The phone reports an SMS it received; resolves once the gateway stored it (and handled its keyword). */
export async function receive(phone: TaskPhone, from: string, text: string, simSlot = 0): Promise<void> {
  const sms = { id: randomUUID(), phone: from, message: text, received_at: new Date().toISOString(), sim_slot: simSlot };
  await phone.client.publishAsync(deviceTopic(phone.id, 'incoming'), JSON.stringify(sms), { qos: 2 });
}

/** The account's suppressed numbers, as the API lists them. */
export async function suppressed(tenant: Tenant): Promise<string[]> {
  const reply = await tenant.api.get('/suppressions?limit=100');
  if (reply.status !== 200) throw new Error(`GET /suppressions: ${reply.status} ${JSON.stringify(reply.body)}`);
  return (reply.body.data as { phone: string }[]).map((row) => row.phone).sort();
}
