// One webhook: where it sends, what, whether it works, its callback id, and its delivery log.
import { useState } from 'preact/hooks';
import { get } from '../api.ts';
import { useSession } from '../session.tsx';
import { formatTime } from '../ui/format.ts';
import { Loading, Page } from '../ui/page.tsx';
import { useLoad } from '../ui/use-load.ts';
import { CallbackId } from './admin/callback-id.tsx';
import { DeliveryLog } from './admin/delivery-log.tsx';
import type { WebhookView } from '../api/types.ts';
import { WebhookActions } from './admin/webhook-actions.tsx';
import { WebhookState } from './admin/webhook-state.tsx';

export function WebhookDetailPage({ id }: { id: string }) {
  const session = useSession();
  const loaded = useLoad(() => get<WebhookView>(`/webhooks/${id}`), [id]);
  // A change answers the webhook as it now is; shown without asking again.
  const [changed, setChanged] = useState<WebhookView>();
  // Enabling sends the events it missed, and a retry changes a row: the log reads again after each.
  const [logVersion, setLogVersion] = useState(0);
  const [testedId, setTestedId] = useState<string>();
  const webhook = changed ?? loaded.data;
  const onChanged = (next: WebhookView) => {
    setChanged(next);
    setLogVersion((version) => version + 1);
  };
  return (
    <Page title="Webhook">
      <p>
        <a href="#/webhooks">← All webhooks</a>
      </p>
      <Loading data={webhook} error={loaded.error}>
        {(shown) => (
          <>
            <div class="card">
              <dl class="facts">
                <dt>URL</dt>
                <dd class="url-cell">{shown.url}</dd>
                {shown.description && (
                  <>
                    <dt>Description</dt>
                    <dd>{shown.description}</dd>
                  </>
                )}
                <dt>Events</dt>
                <dd>{shown.events.join(', ')}</dd>
                <dt>State</dt>
                <dd>
                  <WebhookState webhook={shown} />
                </dd>
                {shown.failing_since && (
                  <>
                    <dt>Failing since</dt>
                    <dd>{formatTime(shown.failing_since)}</dd>
                  </>
                )}
                {shown.disabled_at && (
                  <>
                    <dt>Disabled at</dt>
                    <dd>{formatTime(shown.disabled_at)}</dd>
                  </>
                )}
                <dt>Callback id</dt>
                <dd>
                  <CallbackId id={shown.id} />
                </dd>
                <dt>Created</dt>
                <dd>{formatTime(shown.created_at)}</dd>
              </dl>
            </div>
            {session.canChange ? <WebhookActions webhook={shown} onChanged={onChanged} onTested={(delivery) => (setTestedId(delivery.id), setLogVersion((version) => version + 1))} /> : <p class="muted">Viewers see webhooks; owners change them.</p>}
            <DeliveryLog webhookId={shown.id} canRetry={session.canChange} refreshKey={logVersion} markedId={testedId} />
          </>
        )}
      </Loading>
    </Page>
  );
}
