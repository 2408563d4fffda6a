// Helpers for webhook tests: the gateway's webhook configuration for a local receiver, creating
// a webhook through the API, the exact shapes of the webhook, delivery and event objects, the
// Standard Webhooks signature header split into its signatures, and bounded waits on the sender.
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { loadConfig, type WebhookConfig } from '../../src/config.ts';
import type { Gateway } from '../../src/gateway.ts';
import type { AttemptResult } from '../../src/modules/webhooks/repository.ts';
import { nextEvent } from './devices.ts';
import { expectIsoTimestamp, UUID } from './expectations.ts';
import type { Received } from './receiver.ts';
import { createTenant, type Tenant } from './tenant.ts';
import { emptyDatabase, type EmptyDatabase } from './empty-database.ts';
import { POSTGRES_ADMIN_URL } from './environment.ts';
import { startGateway } from './gateway.ts';
import { removeWebhooksOf } from './test-data.ts';

export const ALL_EVENTS = ['sms.status_changed', 'sms.received', 'device.online', 'device.offline', 'device.battery_low', 'call.missed', 'call.recorded', 'ussd.completed', 'ussd.failed', 'mms.received', 'contact.opted_out', 'contact.opted_in', 'sim.paused', 'device.paused', 'device.resumed', 'device.degraded', 'device.recovered'] as const;

/** Every member of the webhook object, no more (never a secret). */
export const WEBHOOK_KEYS = [
  'id',
  'url',
  'description',
  'events',
  'enabled',
  'disabled_reason',
  'disabled_at',
  'consecutive_failures',
  'failing_since',
  'created_at',
  'updated_at',
] as const;

/** Every member of a delivery in the delivery log, no more (never a secret). */
export const DELIVERY_KEYS = [
  'id',
  'event_id',
  'event_type',
  'status',
  'attempts',
  'last_status_code',
  'last_error',
  'last_response_body',
  'payload',
  'next_attempt_at',
  'retry_until',
  'created_at',
  'delivered_at',
] as const;

/** Every member of an event payload (the envelope), no more. */
export const ENVELOPE_KEYS = ['id', 'type', 'timestamp', 'account_id', 'data'] as const;

/** The webhook configuration of a test gateway: its receivers on 127.0.0.1 allowed, fast retries. */
export function webhookConfig(overrides: Partial<WebhookConfig> = {}): WebhookConfig {
  return { ...loadConfig({}).webhooks, allowedHosts: ['127.0.0.1'], retryBaseMs: 20, ...overrides };
}

export interface CreatedWebhook {
  webhook: WebhookView;
  secret: string;
}

export interface WebhookView {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  consecutive_failures: number;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

/** Creates a webhook through the API and expects 201. */
export async function createWebhook(tenant: Tenant, url: string, events: readonly string[], description?: string): Promise<CreatedWebhook> {
  const reply = await tenant.api.post('/webhooks', { url, events, ...(description !== undefined ? { description } : {}) });
  expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
  return reply.body as CreatedWebhook;
}

/** The body is a webhook object: exactly its keys, each of its type. */
export function expectWebhook(body: any): void {
  expect(body).to.be.an('object');
  expect(Object.keys(body)).to.have.members([...WEBHOOK_KEYS]);
  expect(body.id).to.match(UUID);
  expect(body.url).to.be.a('string').and.not.empty;
  expect(body.description).to.be.a('string');
  expect(body.events).to.be.an('array').and.not.empty;
  for (const event of body.events) expect(ALL_EVENTS).to.include(event);
  expect(body.enabled).to.be.a('boolean');
  if (body.disabled_reason !== null) expect(body.disabled_reason).to.be.a('string').and.not.empty;
  expect(Number.isInteger(body.consecutive_failures) && body.consecutive_failures >= 0, 'consecutive_failures').to.equal(true);
  expectIsoTimestamp(body.created_at, 'created_at');
  expectIsoTimestamp(body.updated_at, 'updated_at');
}

/** The body is a delivery of the delivery log: exactly its keys; next_attempt_at only while pending. */
export function expectDelivery(body: any): void {
  expect(body).to.be.an('object');
  expect(Object.keys(body)).to.have.members([...DELIVERY_KEYS]);
  expect(body.id).to.match(UUID);
  expect(body.event_id).to.match(UUID);
  expect([...ALL_EVENTS, 'webhook.test']).to.include(body.event_type);
  if (body.last_response_body !== null) expect(body.last_response_body).to.be.a('string');
  if (body.payload !== null) expect(body.payload.id).to.equal(body.event_id);
  expect(body.status).to.be.oneOf(['pending', 'delivered', 'failed']);
  expect(Number.isInteger(body.attempts) && body.attempts >= 0, 'attempts').to.equal(true);
  if (body.last_status_code !== null) expect(Number.isInteger(body.last_status_code), 'last_status_code').to.equal(true);
  if (body.last_error !== null) expect(body.last_error).to.be.a('string').and.not.empty;
  if (body.status === 'pending') expectIsoTimestamp(body.next_attempt_at, 'next_attempt_at');
  else expect(body.next_attempt_at, 'next_attempt_at is null unless pending').to.equal(null);
  expectIsoTimestamp(body.retry_until, 'retry_until');
  expectIsoTimestamp(body.created_at, 'created_at');
  if (body.status === 'delivered') expectIsoTimestamp(body.delivered_at, 'delivered_at');
  else expect(body.delivered_at, 'delivered_at is null unless delivered').to.equal(null);
}

/** The event payload has exactly the envelope members; its type and account are the ones given. */
export function expectEnvelope(event: any, type: string, accountId: string): void {
  expect(event).to.be.an('object');
  expect(Object.keys(event)).to.have.members([...ENVELOPE_KEYS]);
  expect(event.id).to.match(UUID);
  expect(event.type).to.equal(type);
  expectIsoTimestamp(event.timestamp, 'timestamp');
  expect(Math.abs(Date.parse(event.timestamp) - Date.now()), 'timestamp is about now').to.be.below(60_000);
  expect(event.account_id).to.equal(accountId);
  expect(event.data).to.be.an('object');
}

/** Verifies a received request with the standardwebhooks package; returns the payload. */
export function verified(secret: string, request: Received): any {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
}

/** Whether the standardwebhooks package accepts the request with this secret. */
export function verifies(secret: string, request: Received, signatureHeader?: string): boolean {
  const headers = { ...(request.headers as Record<string, string>) };
  if (signatureHeader !== undefined) headers['webhook-signature'] = signatureHeader;
  try {
    new Webhook(secret).verify(request.body, headers);
    return true;
  } catch {
    return false;
  }
}

/** The signatures of the webhook-signature header ("v1,<base64>" separated by spaces). */
export function signaturesOf(request: Received): string[] {
  const header = request.headers['webhook-signature'];
  expect(header, 'webhook-signature header').to.be.a('string');
  return (header as string).split(' ').filter(Boolean);
}

/** The delivery log of a webhook (first page), expecting 200. */
export async function deliveryLog(tenant: Tenant, webhookId: string, limit = 100): Promise<any[]> {
  const reply = await tenant.api.get(`/webhooks/${webhookId}/deliveries?limit=${limit}`);
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  return reply.body.data as any[];
}

/** Reads a webhook, expecting 200. */
export async function readWebhook(tenant: Tenant, webhookId: string): Promise<WebhookView> {
  const reply = await tenant.api.get(`/webhooks/${webhookId}`);
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  return reply.body as WebhookView;
}

/**
 * Resolves with the first batch of recorded attempt outcomes in which `accept` holds for an
 * outcome of the webhook. Call it before what causes the attempt.
 */
export async function recorded(
  gateway: Gateway,
  webhookId: string,
  accept: (result: AttemptResult) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<AttemptResult> {
  const [results] = await nextEvent(
    gateway.services.webhookSender,
    'recorded',
    (batch: AttemptResult[]) => batch.some((result) => result.webhookId === webhookId && accept(result)),
    timeoutMs,
  );
  return results.find((result: AttemptResult) => result.webhookId === webhookId && accept(result))!;
}


/** Deletes every webhook of these accounts (and, by cascade, their deliveries): no retries linger. */
export async function dropWebhooks(gateway: Gateway, accountIds: string[]): Promise<void> {
  if (accountIds.length === 0) return;
  await removeWebhooksOf(gateway, accountIds);
}

/**
 * A gateway on a PostgreSQL database of the test's own whose webhook sender is stopped: for tests
 * that claim, record and move deliveries by hand, as the sender would, with no other gateway's
 * sender or sweep touching the rows they set up.
 */
export async function gatewayWithSenderStopped(label: string): Promise<{ gateway: Gateway; tenant: Tenant; database: EmptyDatabase }> {
  const database = await emptyDatabase(POSTGRES_ADMIN_URL, label);
  const gateway = await startGateway({ webhooks: webhookConfig(), databaseUrl: database.url });
  await gateway.services.webhookSender.stop();
  return { gateway, tenant: await createTenant(gateway), database };
}
