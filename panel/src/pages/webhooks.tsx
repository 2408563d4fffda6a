// The account's webhooks: where events go, and whether they get there. Owners add webhooks here;
// the signing secret and the callback id are shown once, right after creating.
import { useState } from 'preact/hooks';
import { get, type Page as ApiPage } from '../api.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { formatTime } from '../ui/format.ts';
import { ShownOnce } from '../ui/notice.tsx';
import { Empty, Loading, Page } from '../ui/page.tsx';
import { Pager, useCursors } from '../ui/pager.tsx';
import { useLoad } from '../ui/use-load.ts';
import { CallbackId } from './admin/callback-id.tsx';
import type { WebhookView, WebhookWithSecret } from '../api/types.ts';
import { WebhookForm } from './admin/webhook-form.tsx';
import { WebhookState } from './admin/webhook-state.tsx';

export function WebhooksPage() {
  const session = useSession();
  const cursors = useCursors();
  const list = useLoad(() => get<ApiPage<WebhookView>>('/webhooks', { cursor: cursors.cursor }), [cursors.cursor]);
  const [created, setCreated] = useState<WebhookWithSecret>();
  const onCreated = (result: WebhookWithSecret) => {
    setCreated(result);
    cursors.reset();
    list.reload();
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
      <Loading data={list.data} error={list.error}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No webhooks yet.{session.canChange ? ' Add one below to receive events.' : ''}</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <caption class="admin-hidden">Webhooks</caption>
                  <thead>
                    <tr>
                      <th scope="col">URL</th>
                      <th scope="col">Events</th>
                      <th scope="col">State</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((webhook) => (
                      <tr key={webhook.id}>
                        <td class="url-cell">
                          <a href={href(`/webhooks/${webhook.id}`)}>{webhook.url}</a>
                          {webhook.description && <div class="muted">{webhook.description}</div>}
                        </td>
                        <td>{webhook.events.join(', ')}</td>
                        <td>
                          <WebhookState webhook={webhook} />
                        </td>
                        <td class="admin-nowrap">{formatTime(webhook.created_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager cursors={cursors} next={page.next_cursor} />
            </>
          )
        }
      </Loading>
      {session.canChange ? <WebhookForm onCreated={onCreated} /> : <p class="muted">Viewers see webhooks; owners add and change them.</p>}
    </Page>
  );
}
