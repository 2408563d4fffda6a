// One user in the table, with what an owner may do to them. The gateway keeps the rules (the last
// owner stays, nobody disables or removes themself); its refusal is shown by the page. Your own
// row offers only a password change: the actions the gateway would refuse are not offered.
import { del, patch, post } from '../../api.ts';
import { href } from '../../router.ts';
import { formatAgo, formatTime } from '../../ui/format.ts';
import { ROLE_OPTIONS } from './roles.ts';
import type { Role, UserView } from '../../api/types.ts';
import type { Action } from './use-action.ts';

interface UserRowProps {
  user: UserView;
  isYou: boolean;
  action: Action;
  onPassword: (email: string, password: string) => void;
}

export function UserRow({ user, isYou, action, onPassword }: UserRowProps) {
  const changeRole = (role: Role) => void action.run(() => patch(`/users/${user.id}`, { role }));
  const switchTo = (disabled: boolean) => void action.run(() => patch(`/users/${user.id}`, { disabled }));
  const resetPassword = async () => {
    const reset = await action.run(() => post<{ user: UserView; one_time_password: string }>(`/users/${user.id}/reset-password`));
    if (reset) onPassword(reset.user.email, reset.one_time_password);
  };
  const remove = () => {
    if (window.confirm(`Remove ${user.email}? They can no longer log in.`)) void action.run(() => del(`/users/${user.id}`));
  };
  return (
    <tr data-disabled={user.disabled ? 'true' : 'false'}>
      <th scope="row" class="cell-plain">
        {user.email}
        {isYou && <span class="muted"> (you)</span>}
      </th>
      <td>
        <select aria-label={`Role of ${user.email}`} value={user.role} disabled={action.busy} onChange={(event) => changeRole(event.currentTarget.value as Role)}>
          {ROLE_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.value}
            </option>
          ))}
        </select>
      </td>
      <td>{user.is_admin ? 'yes' : 'no'}</td>
      <td>{user.disabled ? <span class="badge badge-bad">disabled</span> : <span class="badge badge-good">enabled</span>}</td>
      <td title={user.last_login_at ? formatTime(user.last_login_at) : undefined}>{formatAgo(user.last_login_at)}</td>
      <td>
        {isYou ? (
          // The gateway refuses disabling or removing oneself; a reset would end this session.
          <a href={href('/password')}>Change your password</a>
        ) : (
          <span class="admin-row-actions">
            <button type="button" class="button button-small" disabled={action.busy} onClick={() => void resetPassword()}>
              Reset password
            </button>
            {user.disabled ? (
              <button type="button" class="button button-small" disabled={action.busy} onClick={() => switchTo(false)}>
                Enable
              </button>
            ) : (
              <button type="button" class="button button-small" disabled={action.busy} onClick={() => switchTo(true)}>
                Disable
              </button>
            )}
            <button type="button" class="button button-small button-danger" disabled={action.busy} onClick={remove}>
              Delete
            </button>
          </span>
        )}
      </td>
    </tr>
  );
}
