// The account's users (the people who log in), for owners: roles, access, one-time passwords.
import { useState } from 'preact/hooks';
import { get } from '../api.ts';
import { useSession } from '../session.tsx';
import { ErrorNotice, ShownOnce } from '../ui/notice.tsx';
import { Empty, Loading, Page } from '../ui/page.tsx';
import { useLoad } from '../ui/use-load.ts';
import type { CreatedUser, UserView } from '../api/types.ts';
import { useAction } from './admin/use-action.ts';
import { UserForm } from './admin/user-form.tsx';
import { UserRow } from './admin/user-row.tsx';

export function UsersPage() {
  const session = useSession();
  if (!session.canChange) {
    return (
      <Page title="Users">
        <p>Only owners manage users.</p>
      </Page>
    );
  }
  return <OwnersUsers />;
}

function OwnersUsers() {
  const session = useSession();
  // GET /users answers every user at once (an account has few), so there is no pager.
  const list = useLoad(() => get<{ data: UserView[] }>('/users'), []);
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
      <Loading data={list.data} error={list.error}>
        {({ data: users }) =>
          users.length === 0 ? (
            <Empty>No users.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Admin</th>
                    <th scope="col">Access</th>
                    <th scope="col">Last login</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {users.map((user) => (
                    <UserRow key={user.id} user={user} isYou={user.id === session.user.id} action={action} onPassword={(email, value) => setPassword({ email, value })} />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loading>
      <UserForm onCreated={onCreated} />
    </Page>
  );
}
