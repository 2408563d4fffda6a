// The users table's columns, with what an owner may do to each user. The gateway keeps the rules
// (the last owner stays, nobody disables or removes themself); its refusal is shown by the page.
// Your own row offers only a password change: the actions the gateway would refuse are not offered.
import { del, patch, post } from '../../api.ts';
import type { Role, UserView } from '../../api/types.ts';
import { href } from '../../router.ts';
import { AccessBadge } from '../../ui/badge.tsx';
import type { Column } from '../../ui/data-table.tsx';
import { TimeAgo } from '../../ui/time-ago.tsx';
import { ROLE_OPTIONS } from './roles.ts';
import type { Action } from '../../ui/use-action.ts';

interface UserColumnsOptions {
  /** The logged-in user's id. */
  yourId: string;
  action: Action;
  onPassword: (email: string, password: string) => void;
}

export function userColumns({ yourId, action, onPassword }: UserColumnsOptions): Column<UserView>[] {
  return [
    {
      header: 'Email',
      rowHeader: true,
      cell: (user) => (
        <>
          {user.email}
          {user.id === yourId && <span class="muted"> (you)</span>}
        </>
      ),
    },
    { header: 'Role', cell: (user) => <RoleChoice user={user} action={action} /> },
    { header: 'Admin', cell: (user) => (user.is_admin ? 'yes' : 'no') },
    { header: 'Access', cell: (user) => <AccessBadge disabled={user.disabled} /> },
    { header: 'Last login', cell: (user) => <TimeAgo at={user.last_login_at} /> },
    {
      header: 'Actions',
      // The gateway refuses disabling or removing oneself; a reset would end this session.
      cell: (user) => (user.id === yourId ? <a href={href('/password')}>Change your password</a> : <UserActions user={user} action={action} onPassword={onPassword} />),
    },
  ];
}

function RoleChoice({ user, action }: { user: UserView; action: Action }) {
  const changeRole = (role: Role) => void action.run(() => patch(`/users/${user.id}`, { role }));
  return (
    <select aria-label={`Role of ${user.email}`} value={user.role} disabled={action.busy} onChange={(event) => changeRole(event.currentTarget.value as Role)}>
      {ROLE_OPTIONS.map((option) => (
        <option key={option.value} value={option.value}>
          {option.value}
        </option>
      ))}
    </select>
  );
}

function UserActions({ user, action, onPassword }: { user: UserView; action: Action; onPassword: UserColumnsOptions['onPassword'] }) {
  const switchTo = (disabled: boolean) => void action.run(() => patch(`/users/${user.id}`, { disabled }));
  const resetPassword = async () => {
    const reset = await action.run(() => post<{ user: UserView; one_time_password: string }>(`/users/${user.id}/reset-password`));
    if (reset) onPassword(reset.user.email, reset.one_time_password);
  };
  const remove = () => {
    if (window.confirm(`Remove ${user.email}? They can no longer log in.`)) void action.run(() => del(`/users/${user.id}`));
  };
  return (
    <span class="admin-row-actions">
      <button type="button" class="button button-small" disabled={action.busy} onClick={() => void resetPassword()}>
        Reset password
      </button>
      <button type="button" class="button button-small" disabled={action.busy} onClick={() => switchTo(!user.disabled)}>
        {user.disabled ? 'Enable' : 'Disable'}
      </button>
      <button type="button" class="button button-small button-danger" disabled={action.busy} onClick={remove}>
        Delete
      </button>
    </span>
  );
}
