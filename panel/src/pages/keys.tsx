// The account's API keys, for owners: who can call the API, with what, and when they last did.
// A new key is shown once; afterwards only its prefix, which is what the list and logs show.
import { del } from '../api.ts';
import { useSession } from '../session.tsx';
import { OnlyFor } from '../ui/only-for.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { formatTime } from '../ui/format.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { TimeAgo } from '../ui/time-ago.tsx';
import { Page } from '../ui/page.tsx';
import { usePagedList } from '../ui/use-paged-list.ts';
import { KeyForm } from './admin/key-form.tsx';
import type { KeyView } from '../api/types.ts';
import { useAction } from '../ui/use-action.ts';

export function KeysPage() {
  const session = useSession();
  return <OnlyFor allowed={session.canChange} title="API keys" others="Only owners manage API keys."><OwnersKeys /></OnlyFor>;
}

function OwnersKeys() {
  const list = usePagedList<KeyView>('/keys');
  const revoke = useAction(list.reload);
  const confirmRevoke = (key: KeyView) => {
    if (!window.confirm(`Revoke the key ${describe(key)}? Anything using it stops working at once.`)) return;
    void revoke.run(() => del<KeyView>(`/keys/${key.id}`));
  };
  return (
    <Page title="API keys">
      <ErrorNotice error={revoke.error} />
      <DataTable
        list={list}
        class="stack-on-phone"
        empty="No API keys yet. Create one below."
        rowAttributes={(key) => ({ 'data-revoked': key.revoked_at ? 'true' : 'false' })}
        columns={[
          { header: 'Name', cell: (key) => key.name || <span class="muted">unnamed</span> },
          { header: 'Prefix', cell: (key) => <code>{key.prefix}</code> },
          { header: 'Permissions', class: 'permission-list', cell: (key) => key.permissions.join(', ') },
          { header: 'Created', class: 'admin-nowrap', cell: (key) => formatTime(key.created_at) },
          { header: 'Last used', cell: (key) => <TimeAgo at={key.last_used_at} /> },
          {
            header: 'State',
            cell: (key) =>
              key.revoked_at ? (
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
              ),
          },
        ]}
      />
      <KeyForm onCreated={list.restart} />
    </Page>
  );
}

/** How a key is named to people: its name and prefix, or the prefix alone. */
function describe(key: KeyView): string {
  return key.name ? `${key.name} (${key.prefix})` : key.prefix;
}
