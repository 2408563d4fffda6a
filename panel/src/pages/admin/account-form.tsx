// Opening an account with its first owner. The gateway answers the owner's one-time password,
// shown once by the page; the owner chooses their own at first login.
import { useState } from 'preact/hooks';
import { post } from '../../api.ts';
import { TextField } from '../../ui/fields.tsx';
import { ErrorNotice } from '../../ui/notice.tsx';
import { formErrors } from '../../ui/form-errors.ts';
import type { OpenedAccount } from '../../api/types.ts';
import { useAction } from './use-action.ts';

export function AccountForm({ onCreated }: { onCreated: (opened: OpenedAccount) => void }) {
  const [name, setName] = useState('');
  const [ownerEmail, setOwnerEmail] = useState('');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const opened = await action.run(() => post<OpenedAccount>('/accounts', { name, owner_email: ownerEmail }));
    if (!opened) return;
    setName('');
    setOwnerEmail('');
    onCreated(opened);
  };
  const error = formErrors(action.error, { name: 'Account name', owner_email: 'Owner email' });
  return (
    <form class="card admin-form" onSubmit={submit} noValidate aria-labelledby="new-account">
      <h2 id="new-account">New account</h2>
      <ErrorNotice error={error.notice} />
      <div class="form-row">
        <TextField label="Account name" name="name" autoComplete="off" value={name} onValue={setName} hint="Letters, digits, or . _ - @" error={error.field('name')} />
        <TextField label="Owner email" type="email" name="owner_email" autoComplete="off" value={ownerEmail} onValue={setOwnerEmail} error={error.field('owner_email')} />
      </div>
      <button type="submit" class="button button-primary" disabled={action.busy}>
        Create account
      </button>
    </form>
  );
}
