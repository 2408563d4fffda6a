// Creating an API key: a name for people and what it may do. A key grants only what its creator
// holds; the gateway decides, and its 403 naming the missing permissions is shown as it comes.
import { useState } from 'preact/hooks';
import { post } from '../../api.ts';
import { TextField } from '../../ui/fields.tsx';
import { ErrorNotice } from '../../ui/notice.tsx';
import { formErrors } from '../../ui/form-errors.ts';
import { ChoiceBoxes } from './choice-boxes.tsx';
import { useRequestChoices } from './request-choices.ts';
import type { KeyWithSecret } from '../../api/types.ts';
import { useAction } from './use-action.ts';

export function KeyForm({ onCreated }: { onCreated: (created: KeyWithSecret) => void }) {
  const permissionNames = useRequestChoices('post', '/keys', 'permissions');
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<string[]>([]);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await action.run(() => post<KeyWithSecret>('/keys', { permissions, ...(name ? { name } : {}) }));
    if (!created) return;
    setName('');
    setPermissions([]);
    onCreated(created);
  };
  const error = formErrors(action.error, { name: 'Key name', permissions: 'Permissions' });
  return (
    <form class="card admin-form" onSubmit={submit} noValidate aria-labelledby="new-key">
      <h2 id="new-key">New API key</h2>
      <ErrorNotice error={error.notice} />
      <TextField label="Key name" name="name" value={name} onValue={setName} hint="Where the key is used, so you know which one to revoke." error={error.field('name')} />
      <ErrorNotice error={permissionNames.error} />
      <ChoiceBoxes legend="Permissions" choices={permissionNames.data ?? []} chosen={permissions} onChosen={setPermissions} error={error.field('permissions')} />
      <button type="submit" class="button button-primary" disabled={action.busy}>
        Create key
      </button>
    </form>
  );
}
