// Opening an account with its first owner. The gateway answers the owner's one-time password,
// shown once by the page; the owner chooses their own at first login.
import { post } from '../../api.ts';
import { TextField } from '../../ui/fields.tsx';
import type { OpenedAccount } from '../../api/types.ts';
import { CreateForm, useCreateForm } from './create-form.tsx';

export function AccountForm({ onCreated }: { onCreated: (opened: OpenedAccount) => void }) {
  const form = useCreateForm(
    { name: '', owner_email: '' },
    (values) => post<OpenedAccount>('/accounts', values),
    onCreated,
    { name: 'Account name', owner_email: 'Owner email' },
  );
  const { values, set, error } = form;
  return (
    <CreateForm id="new-account" title="New account" action="Create account" form={form} secretLabel="One-time password" secret={(opened) => opened.one_time_password} secretNote={(opened) => <p>Give it to {opened.owner.email}, the first owner of {opened.account.name}: they choose their own password when they first log in with it.</p>}>
      <div class="form-row">
        <TextField label="Account name" name="name" autoComplete="off" value={values.name} onValue={set('name')} hint="Letters, digits, or . _ - @" error={error.field('name')} />
        <TextField label="Owner email" type="email" name="owner_email" autoComplete="off" value={values.owner_email} onValue={set('owner_email')} error={error.field('owner_email')} />
      </div>
    </CreateForm>
  );
}
