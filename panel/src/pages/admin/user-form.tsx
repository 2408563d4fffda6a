// Adding a user to the account: an email and a role. The gateway makes a one-time password,
// which the page shows once; the new user chooses their own at first login.
import { useState } from 'preact/hooks';
import { post } from '../../api.ts';
import { SelectField, TextField } from '../../ui/fields.tsx';
import { ErrorNotice } from '../../ui/notice.tsx';
import { formErrors } from '../../ui/form-errors.ts';
import { ROLE_OPTIONS } from './roles.ts';
import type { CreatedUser, Role } from '../../api/types.ts';
import { useAction } from './use-action.ts';

export function UserForm({ onCreated }: { onCreated: (created: CreatedUser) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await action.run(() => post<CreatedUser>('/users', { email, role }));
    if (!created) return;
    setEmail('');
    onCreated(created);
  };
  const error = formErrors(action.error, { email: 'Email', role: 'Role' });
  return (
    <form class="card admin-form" onSubmit={submit} noValidate aria-labelledby="new-user">
      <h2 id="new-user">New user</h2>
      <ErrorNotice error={error.notice} />
      <div class="form-row">
        <TextField label="Email" type="email" name="email" autoComplete="off" value={email} onValue={setEmail} error={error.field('email')} />
        <SelectField label="Role" name="role" value={role} onValue={(value) => setRole(value as Role)} options={ROLE_OPTIONS} error={error.field('role')} />
      </div>
      <button type="submit" class="button button-primary" disabled={action.busy}>
        Add user
      </button>
    </form>
  );
}
