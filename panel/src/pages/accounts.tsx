// The instance's accounts, newest first and paged, for its administrator: who uses the gateway, and switching an
// account off (its keys and sessions are refused; nothing is deleted) or on again.
import { patch } from '../api.ts';
import { useSession } from '../session.tsx';
import { OnlyFor } from '../ui/only-for.tsx';
import { formatTime } from '../ui/format.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { AccessBadge } from '../ui/badge.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { Page } from '../ui/page.tsx';
import { usePagedList } from '../ui/use-paged-list.ts';
import { AccountForm } from './admin/account-form.tsx';
import type { AccountView } from '../api/types.ts';
import { useAction } from '../ui/use-action.ts';

export function AccountsPage() {
  const session = useSession();
  return <OnlyFor allowed={session.user.is_admin} title="Accounts" others="Only the instance administrator manages accounts."><AdminAccounts /></OnlyFor>;
}

function AdminAccounts() {
  const list = usePagedList<AccountView>('/accounts');
  const action = useAction(list.reload);
  const switchTo = (account: AccountView, disabled: boolean) => void action.run(() => patch(`/accounts/${account.id}`, { disabled }));
  return (
    <Page title="Accounts">
      <ErrorNotice error={action.error} />
      <DataTable
        list={list}
        empty="No accounts."
        rowAttributes={(account) => ({ 'data-disabled': account.disabled ? 'true' : 'false' })}
        columns={[
          { header: 'Name', rowHeader: true, cell: (account) => account.name },
          { header: 'Created', class: 'admin-nowrap', cell: (account) => formatTime(account.created_at) },
          { header: 'Users', numeric: true, cell: (account) => account.users },
          { header: 'Devices', numeric: true, cell: (account) => account.devices },
          { header: 'Access', cell: (account) => <AccessBadge disabled={account.disabled} /> },
          {
            header: 'Action',
            cell: (account) =>
              account.yours ? (
                // The gateway refuses it (409): disabling it would lock its administrator out.
                <span class="muted" data-testid="own-account">
                  Your own account: it cannot be disabled
                </span>
              ) : (
                <button type="button" class="button button-small" disabled={action.busy} onClick={() => switchTo(account, !account.disabled)}>
                  {account.disabled ? 'Enable' : 'Disable'}
                </button>
              ),
          },
        ]}
      />
      {/* Newest first: the new account heads the first page. */}
      <AccountForm onCreated={list.restart} />
    </Page>
  );
}
