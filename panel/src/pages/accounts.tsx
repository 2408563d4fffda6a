// The instance's accounts, newest first and paged, for its administrator: who uses the gateway, and switching an
// account off (its keys and sessions are refused; nothing is deleted) or on again.
import { useState } from 'preact/hooks';
import { get, patch, type Page as ApiPage } from '../api.ts';
import { useSession } from '../session.tsx';
import { formatTime } from '../ui/format.ts';
import { ErrorNotice, ShownOnce } from '../ui/notice.tsx';
import { Empty, Loading, Page } from '../ui/page.tsx';
import { useLoad } from '../ui/use-load.ts';
import { Pager, useCursors } from '../ui/pager.tsx';
import { AccountForm } from './admin/account-form.tsx';
import type { AccountView, OpenedAccount } from '../api/types.ts';
import { useAction } from './admin/use-action.ts';

export function AccountsPage() {
  const session = useSession();
  if (!session.user.is_admin) {
    return (
      <Page title="Accounts">
        <p>Only the instance administrator manages accounts.</p>
      </Page>
    );
  }
  return <AdminAccounts />;
}

function AdminAccounts() {
  const cursors = useCursors();
  const list = useLoad(() => get<ApiPage<AccountView>>('/accounts', { cursor: cursors.cursor }), [cursors.cursor]);
  const action = useAction(list.reload);
  const [opened, setOpened] = useState<OpenedAccount>();
  const onCreated = (result: OpenedAccount) => {
    setOpened(result);
    // Newest first: the new account heads the first page.
    if (cursors.page === 1) list.reload();
    else cursors.reset();
  };
  const switchTo = (account: AccountView, disabled: boolean) => void action.run(() => patch(`/accounts/${account.id}`, { disabled }));
  return (
    <Page title="Accounts">
      {opened && (
        <ShownOnce label="One-time password" value={opened.one_time_password}>
          <p>
            Give it to {opened.owner.email}, the first owner of {opened.account.name}: they choose their own password when they first log in with it.
          </p>
        </ShownOnce>
      )}
      <ErrorNotice error={action.error} />
      <Loading data={list.data} error={list.error}>
        {({ data: accounts, next_cursor: next }) =>
          accounts.length === 0 ? (
            <Empty>No accounts.</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Created</th>
                      <th scope="col" class="num">
                        Users
                      </th>
                      <th scope="col" class="num">
                        Devices
                      </th>
                      <th scope="col">Access</th>
                      <th scope="col">Action</th>
                    </tr>
                  </thead>
                  <tbody>
                    {accounts.map((account) => (
                      <tr key={account.id} data-disabled={account.disabled ? 'true' : 'false'}>
                        <th scope="row" class="cell-plain">
                          {account.name}
                        </th>
                        <td class="admin-nowrap">{formatTime(account.created_at)}</td>
                        <td class="num">{account.users}</td>
                        <td class="num">{account.devices}</td>
                        <td>{account.disabled ? <span class="badge badge-bad">disabled</span> : <span class="badge badge-good">enabled</span>}</td>
                        <td>
                          {account.yours ? (
                            // The gateway refuses it (409): disabling it would lock its administrator out.
                            <span class="muted" data-testid="own-account">Your own account: it cannot be disabled</span>
                          ) : (
                            <button type="button" class="button button-small" disabled={action.busy} onClick={() => switchTo(account, !account.disabled)}>
                              {account.disabled ? 'Enable' : 'Disable'}
                            </button>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager cursors={cursors} next={next} />
            </>
          )
        }
      </Loading>
      <AccountForm onCreated={onCreated} />
    </Page>
  );
}
