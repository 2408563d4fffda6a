import type { Static } from '@sinclair/typebox';
import type { DeliveryRow, WebhookRow } from './repository.ts';
import type { DeliveryView, WebhookView } from './schema.ts';
import { isScheduled } from '../ordering/parking.ts';
import type { Permission } from '../../api-keys/permissions.ts';

export function presentWebhook(webhook: WebhookRow): Static<typeof WebhookView> {
  return {
    id: webhook.id,
    url: webhook.url,
    description: webhook.description,
    events: webhook.events,
    enabled: webhook.enabled,
    disabled_reason: webhook.disabled_reason,
    consecutive_failures: webhook.consecutive_failures,
    failing_since: webhook.failing_since?.toISOString() ?? null,
    disabled_at: webhook.disabled_at?.toISOString() ?? null,
    created_at: webhook.created_at.toISOString(),
    updated_at: webhook.updated_at.toISOString(),
  };
}

/**
 * A delivery as the log shows it. `may`: the caller's permissions; the payload repeats what the
 * event is about (an SMS's text and phone, a call), so it is shown only to whoever may read that.
 */
export function presentDelivery(delivery: DeliveryRow, may: ReadonlySet<Permission>): Static<typeof DeliveryView> {
  const needed = payloadPermission(delivery.event_type);
  return {
    id: delivery.id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.last_status_code,
    last_error: delivery.last_error,
    last_response_body: delivery.last_response_body ?? null,
    payload: needed === undefined || may.has(needed) ? parsePayload(delivery.body) : null,
    next_attempt_at: delivery.status === 'pending' && isScheduled(delivery.next_attempt_at) ? delivery.next_attempt_at.toISOString() : null,
    retry_until: delivery.retry_until.toISOString(),
    created_at: delivery.created_at.toISOString(),
    delivered_at: delivery.delivered_at?.toISOString() ?? null,
  };
}

/** What a caller must hold besides webhooks:read to see the payload of an event of this type. */
function payloadPermission(type: string): Permission | undefined {
  if (type.startsWith('sms.') || type.startsWith('mms.')) return 'sms:read';
  if (type.startsWith('call.')) return 'calls:read';
  if (type.startsWith('device.')) return 'devices:read';
  return undefined;
}

function parsePayload(body: string): Record<string, unknown> | null {
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    // Written by the outbox as JSON; never expected, and no reason to fail the whole log.
    return null;
  }
}
