// Adding a user to the account: an email and a role. The gateway makes a one-time password,
// which the page shows once; the new user chooses their own at first login.
import { post } from '../../api.ts';
import { SelectField, TextField } from '../../ui/fields.tsx';
import { ROLE_OPTIONS } from './roles.ts';
import type { CreatedUser, Role } from '../../api/types.ts';
import { CreateForm, useCreateForm } from './create-form.tsx';

export function UserForm({ onCreated }: { onCreated: (created: CreatedUser) => void }) {
  const form = useCreateForm({ email: '', role: 'viewer' as Role }, (values) => post<CreatedUser>('/users', values), onCreated, { email: 'Email', role: 'Role' });
  const { values, set, error } = form;
  return (
    <CreateForm id="new-user" title="New user" action="Add user" form={form}>
      <div class="form-row">
        <TextField label="Email" type="email" name="email" autoComplete="off" value={values.email} onValue={set('email')} error={error.field('email')} />
        <SelectField label="Role" name="role" value={values.role} onValue={(value) => set('role')(value as Role)} options={ROLE_OPTIONS} error={error.field('role')} />
      </div>
    </CreateForm>
  );
}
