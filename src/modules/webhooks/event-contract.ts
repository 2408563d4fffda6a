// What a webhook event is, whoever announces it: a name a webhook subscribes to, and an envelope
// carrying an event id, the name, a timestamp, the account and the body. The feature that owns a
// fact declares its body (src/modules/<feature>/webhook-events.ts); webhooks stores, orders and
// sends envelopes without knowing what they say.
import { randomUUID } from 'node:crypto';

/**
 * The events a webhook may subscribe to, in the order the API documents them. Kept here, not
 * gathered from the features: it is the webhooks API's own vocabulary (a webhook's `events` are
 * checked against it), and each feature's bodies are typed against it.
 */
export const WEBHOOK_EVENTS = [
  'sms.status_changed',
  'sms.received',
  'device.online',
  'device.offline',
  'device.battery_low',
  'device.paused',
  'device.resumed',
  'device.degraded',
  'device.recovered',
  'sim.paused',
  'call.missed',
  'call.recorded',
  'ussd.completed',
  'ussd.failed',
  'mms.received',
  'contact.opted_out',
  'contact.opted_in',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * Sent only when asked for (POST /webhooks/{id}/test), to that webhook alone, whatever events it
 * subscribes to: not an event anyone can subscribe to.
 */
export const TEST_EVENT = 'webhook.test';
/** Every type a delivery can carry. */
export type DeliveredEvent = WebhookEvent | typeof TEST_EVENT;

export interface EventEnvelope {
  id: string;
  type: DeliveredEvent;
  timestamp: string;
  account_id: string;
  data: Record<string, unknown>;
}

/** An event of `type` for the account, with a new id; `at` is when what it reports happened. */
export function envelope(type: DeliveredEvent, accountId: string, data: Record<string, unknown>, at = new Date()): EventEnvelope {
  return { id: randomUUID(), type, timestamp: at.toISOString(), account_id: accountId, data };
}
