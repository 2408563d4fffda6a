// The account's users (the people who log in), for owners: roles, access, one-time passwords.
import { useState } from 'preact/hooks';
import { useSession } from '../session.tsx';
import { OnlyFor } from '../ui/only-for.tsx';
import { ErrorNotice, ShownOnce } from '../ui/notice.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { Page } from '../ui/page.tsx';
import { usePagedList } from '../ui/use-paged-list.ts';
import type { CreatedUser, UserView } from '../api/types.ts';
import { useAction } from '../ui/use-action.ts';
import { UserForm } from './admin/user-form.tsx';
import { userColumns } from './admin/user-columns.tsx';

export function UsersPage() {
  const session = useSession();
  return <OnlyFor allowed={session.canChange} title="Users" others="Only owners manage users."><OwnersUsers /></OnlyFor>;
}

function OwnersUsers() {
  const session = useSession();
  // GET /users answers every user at once (an account has few): no next page, so no pager.
  const list = usePagedList<UserView>('/users');
  const action = useAction(list.reload);
  const [password, setPassword] = useState<{ email: string; value: string }>();
  const onCreated = (user: CreatedUser) => {
    if (user.one_time_password) setPassword({ email: user.email, value: user.one_time_password });
    list.reload();
  };
  return (
    <Page title="Users">
      {password && (
        <ShownOnce label="One-time password" value={password.value}>
          <p>Give it to {password.email}: they choose their own password when they first log in with it.</p>
        </ShownOnce>
      )}
      <ErrorNotice error={action.error} />
      <DataTable
        list={list}
        empty="No users."
        rowAttributes={(user) => ({ 'data-disabled': user.disabled ? 'true' : 'false' })}
        columns={userColumns({ yourId: session.user.id, action, onPassword: (email, value) => setPassword({ email, value }) })}
      />
      <UserForm onCreated={onCreated} />
    </Page>
  );
}
