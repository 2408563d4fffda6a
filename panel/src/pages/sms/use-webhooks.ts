// The account's webhooks, for the send form's "Webhook" choice: an SMS's callback_id names the one
// webhook that gets its events (every webhook with SMS events when none is named).
import { get, type Page } from '../../api.ts';
import { useLoad } from '../../ui/use-load.ts';
import type { WebhookView } from '../../api/types.ts';

const WEBHOOKS_PER_CHOICE = 100;

export function useWebhookOptions(firstLabel: string) {
  const loaded = useLoad(() => get<Page<WebhookView>>('/webhooks', { limit: WEBHOOKS_PER_CHOICE }), []);
  const webhooks = loaded.data?.data ?? [];
  return {
    error: loaded.error,
    options: [
      { value: '', label: firstLabel },
      ...webhooks.map((webhook) => ({
        value: webhook.id,
        label: `${webhook.description ? `${webhook.description} — ` : ''}${webhook.url}${webhook.enabled ? '' : ' (disabled)'}`,
      })),
    ],
  };
}
