// Creating an API key: a name for people and what it may do. A key grants only what its creator
// holds; the gateway decides, and its 403 naming the missing permissions is shown as it comes.
import { post } from '../../api.ts';
import { TextField } from '../../ui/fields.tsx';
import { ErrorNotice } from '../../ui/notice.tsx';
import { ChoiceBoxes } from './choice-boxes.tsx';
import { useRequestChoices } from './request-choices.ts';
import type { KeyWithSecret } from '../../api/types.ts';
import { CreateForm, useCreateForm } from './create-form.tsx';

export function KeyForm({ onCreated }: { onCreated: (created: KeyWithSecret) => void }) {
  const permissionNames = useRequestChoices('post', '/keys', 'permissions');
  const form = useCreateForm(
    { name: '', permissions: [] as string[] },
    ({ name, permissions }) => post<KeyWithSecret>('/keys', { permissions, ...(name ? { name } : {}) }),
    onCreated,
    { name: 'Key name', permissions: 'Permissions' },
  );
  const { values, set, error } = form;
  return (
    <CreateForm id="new-key" title="New API key" action="Create key" form={form} secretLabel="API key" secret={(created) => created.key} secretNote={() => <p>Send it as Authorization: Bearer. Only its hash is stored: it cannot be shown again.</p>}>
      <TextField label="Key name" name="name" value={values.name} onValue={set('name')} hint="Where the key is used, so you know which one to revoke." error={error.field('name')} />
      <ErrorNotice error={permissionNames.error} />
      <ChoiceBoxes legend="Permissions" choices={permissionNames.data ?? []} chosen={values.permissions} onChosen={set('permissions')} error={error.field('permissions')} />
    </CreateForm>
  );
}
