import type { Static } from '@sinclair/typebox';
import type { DeliveryRow, WebhookRow } from './repository.ts';
import type { DeliveryView, WebhookView } from './schema.ts';
import { isScheduled } from './parking.ts';

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

export function presentDelivery(delivery: DeliveryRow): Static<typeof DeliveryView> {
  return {
    id: delivery.id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.last_status_code,
    last_error: delivery.last_error,
    next_attempt_at: delivery.status === 'pending' && isScheduled(delivery.next_attempt_at) ? delivery.next_attempt_at.toISOString() : null,
    retry_until: delivery.retry_until.toISOString(),
    created_at: delivery.created_at.toISOString(),
    delivered_at: delivery.delivered_at?.toISOString() ?? null,
  };
}
