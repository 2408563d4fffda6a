// The account's webhooks: where events go, and whether they get there. Owners add webhooks here;
// the signing secret and the callback id are shown once, right after creating.
import { useState } from 'preact/hooks';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { formatTime } from '../ui/format.ts';
import { ShownOnce } from '../ui/notice.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { Page } from '../ui/page.tsx';
import { usePagedList } from '../ui/use-paged-list.ts';
import { CallbackId } from './admin/callback-id.tsx';
import type { WebhookView, WebhookWithSecret } from '../api/types.ts';
import { WebhookForm } from './admin/webhook-form.tsx';
import { WebhookState } from './admin/webhook-state.tsx';

export function WebhooksPage() {
  const session = useSession();
  const list = usePagedList<WebhookView>('/webhooks');
  const [created, setCreated] = useState<WebhookWithSecret>();
  const onCreated = (result: WebhookWithSecret) => {
    setCreated(result);
    list.restart();
  };
  return (
    <Page title="Webhooks">
      {created && (
        <ShownOnce label="Webhook secret" value={created.secret}>
          <p>It signs every delivery (Standard Webhooks); check it on the receiving side.</p>
          <p>
            Callback id for the legacy API: <CallbackId id={created.webhook.id} />
          </p>
          <p>
            <a href={href(`/webhooks/${created.webhook.id}`)}>Open the new webhook</a>
          </p>
        </ShownOnce>
      )}
      <DataTable
        list={list}
        caption="Webhooks"
        empty={`No webhooks yet.${session.canChange ? ' Add one below to receive events.' : ''}`}
        columns={[
          {
            header: 'URL',
            class: 'url-cell',
            cell: (webhook) => (
              <>
                <a href={href(`/webhooks/${webhook.id}`)}>{webhook.url}</a>
                {webhook.description && <div class="muted">{webhook.description}</div>}
              </>
            ),
          },
          { header: 'Events', cell: (webhook) => webhook.events.join(', ') },
          { header: 'State', cell: (webhook) => <WebhookState webhook={webhook} /> },
          { header: 'Created', class: 'admin-nowrap', cell: (webhook) => formatTime(webhook.created_at) },
        ]}
      />
      {session.canChange ? <WebhookForm onCreated={onCreated} /> : <p class="muted">Viewers see webhooks; owners add and change them.</p>}
    </Page>
  );
}
