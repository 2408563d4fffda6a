// What an owner does to one webhook: send it a test event (to check the receiver before real
// events depend on it), rotate its secret (the new one shown once), switch it off or on, delete
// it. Each answers the webhook as it now is, which the page shows.
import { useState } from 'preact/hooks';
import { del, patch, post } from '../../api.ts';
import { navigate } from '../../router.ts';
import { formatTime } from '../../ui/format.ts';
import { ErrorNotice, ShownOnce, SuccessNotice } from '../../ui/notice.tsx';
import type { DeliveryView, WebhookView, WebhookWithSecret } from '../../api/types.ts';
import { useAction } from '../../ui/use-action.ts';
import { deliveryRowId } from './delivery-log.tsx';

interface Props {
  webhook: WebhookView;
  onChanged: (webhook: WebhookView) => void;
  /** A test event was queued: the delivery log should show it, marked. */
  onTested: (delivery: DeliveryView) => void;
}

export function WebhookActions({ webhook, onChanged, onTested }: Props) {
  const action = useAction();
  const [secret, setSecret] = useState<string>();
  const [tested, setTested] = useState<DeliveryView>();
  const test = async () => {
    setTested(undefined);
    const delivery = await action.run(() => post<DeliveryView>(`/webhooks/${webhook.id}/test`));
    if (!delivery) return;
    setTested(delivery);
    onTested(delivery);
  };
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
      {tested && (
        <SuccessNotice>
          Test event sent at {formatTime(tested.created_at)}.{' '}
          <button type="button" class="button button-small" onClick={() => document.getElementById(deliveryRowId(tested.id))?.scrollIntoView({ block: 'center' })}>
            Show its delivery
          </button>{' '}
          Its row, marked below, shows whether the receiver took it and what it answered.
        </SuccessNotice>
      )}
      <div class="admin-actions">
        <button type="button" class="button" disabled={action.busy || !webhook.enabled} title={webhook.enabled ? undefined : 'Enable the webhook first'} onClick={() => void test()}>
          Send test event
        </button>
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
