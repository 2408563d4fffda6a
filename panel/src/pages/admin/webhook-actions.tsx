// What an owner does to one webhook: rotate its secret (the new one shown once), switch it off or
// on, delete it. Each answers the webhook as it now is, which the page shows.
import { useState } from 'preact/hooks';
import { del, patch, post } from '../../api.ts';
import { navigate } from '../../router.ts';
import { ErrorNotice, ShownOnce } from '../../ui/notice.tsx';
import type { WebhookView, WebhookWithSecret } from './types.ts';
import { useAction } from './use-action.ts';

export function WebhookActions({ webhook, onChanged }: { webhook: WebhookView; onChanged: (webhook: WebhookView) => void }) {
  const action = useAction();
  const [secret, setSecret] = useState<string>();
  const rotate = async () => {
    const rotated = await action.run(() => post<WebhookWithSecret>(`/webhooks/${webhook.id}/rotate-secret`));
    if (!rotated) return;
    setSecret(rotated.secret);
    onChanged(rotated.webhook);
  };
  const switchTo = async (enabled: boolean) => {
    const changed = await action.run(() => patch<WebhookView>(`/webhooks/${webhook.id}`, { enabled }));
    if (changed) onChanged(changed);
  };
  const remove = async () => {
    if (!window.confirm(`Delete the webhook to ${webhook.url} and its delivery log?`)) return;
    const deleted = await action.run(async () => (await del(`/webhooks/${webhook.id}`), true));
    if (deleted) navigate('/webhooks');
  };
  return (
    <>
      <ErrorNotice error={action.error} />
      {secret && (
        <ShownOnce label="Webhook secret" value={secret}>
          <p>The old secret keeps signing for 24 hours, so receivers can switch over.</p>
        </ShownOnce>
      )}
      <div class="admin-actions">
        <button type="button" class="button" disabled={action.busy} onClick={() => void rotate()}>
          Rotate secret
        </button>
        {webhook.enabled ? (
          <button type="button" class="button" disabled={action.busy} onClick={() => void switchTo(false)}>
            Disable
          </button>
        ) : (
          <button type="button" class="button" disabled={action.busy} onClick={() => void switchTo(true)}>
            Enable
          </button>
        )}
        <button type="button" class="button button-danger" disabled={action.busy} onClick={() => void remove()}>
          Delete webhook
        </button>
      </div>
    </>
  );
}
