// The account's API keys, for owners: who can call the API, with what, and when they last did.
// A new key is shown once; afterwards only its prefix, which is what the list and logs show.
import { useState } from 'preact/hooks';
import { del, get, type Page as ApiPage } from '../api.ts';
import { useSession } from '../session.tsx';
import { formatAgo, formatTime } from '../ui/format.ts';
import { ErrorNotice, ShownOnce } from '../ui/notice.tsx';
import { Empty, Loading, Page } from '../ui/page.tsx';
import { Pager, useCursors } from '../ui/pager.tsx';
import { useLoad } from '../ui/use-load.ts';
import { KeyForm } from './admin/key-form.tsx';
import type { KeyView, KeyWithSecret } from '../api/types.ts';
import { useAction } from './admin/use-action.ts';

export function KeysPage() {
  const session = useSession();
  if (!session.canChange) {
    return (
      <Page title="API keys">
        <p>Only owners manage API keys.</p>
      </Page>
    );
  }
  return <OwnersKeys />;
}

function OwnersKeys() {
  const cursors = useCursors();
  const list = useLoad(() => get<ApiPage<KeyView>>('/keys', { cursor: cursors.cursor }), [cursors.cursor]);
  const revoke = useAction(list.reload);
  const [created, setCreated] = useState<KeyWithSecret>();
  const onCreated = (key: KeyWithSecret) => {
    setCreated(key);
    cursors.reset();
    list.reload();
  };
  const confirmRevoke = (key: KeyView) => {
    if (!window.confirm(`Revoke the key ${describe(key)}? Anything using it stops working at once.`)) return;
    void revoke.run(() => del<KeyView>(`/keys/${key.id}`));
  };
  return (
    <Page title="API keys">
      {created && (
        <ShownOnce label="API key" value={created.key}>
          <p>Send it as Authorization: Bearer. Only its hash is stored: it cannot be shown again.</p>
        </ShownOnce>
      )}
      <ErrorNotice error={revoke.error} />
      <Loading data={list.data} error={list.error}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No API keys yet. Create one below.</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Prefix</th>
                      <th scope="col">Permissions</th>
                      <th scope="col">Created</th>
                      <th scope="col">Last used</th>
                      <th scope="col">State</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((key) => (
                      <tr key={key.id} data-revoked={key.revoked_at ? 'true' : 'false'}>
                        <td>{key.name || <span class="muted">unnamed</span>}</td>
                        <td>
                          <code>{key.prefix}</code>
                        </td>
                        <td class="permission-list">{key.permissions.join(', ')}</td>
                        <td class="admin-nowrap">{formatTime(key.created_at)}</td>
                        <td title={key.last_used_at ? formatTime(key.last_used_at) : undefined}>{formatAgo(key.last_used_at)}</td>
                        <td>
                          {key.revoked_at ? (
                            <span>
                              <span class="badge badge-bad">revoked</span> <span class="muted">{formatTime(key.revoked_at)}</span>
                            </span>
                          ) : (
                            <span class="admin-row-actions">
                              <span class="badge badge-good">active</span>
                              <button type="button" class="button button-small button-danger" disabled={revoke.busy} aria-label={`Revoke key ${describe(key)}`} onClick={() => confirmRevoke(key)}>
                                Revoke
                              </button>
                            </span>
                          )}
                        </td>
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
      <KeyForm onCreated={onCreated} />
    </Page>
  );
}

/** How a key is named to people: its name and prefix, or the prefix alone. */
function describe(key: KeyView): string {
  return key.name ? `${key.name} (${key.prefix})` : key.prefix;
}
