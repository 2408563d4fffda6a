// The account's contact groups with their member counts; owners create and delete them
// (members are added and removed from the contacts table above).
import { useEffect } from 'preact/hooks';
import { del, post } from '../../api.ts';
import type { ContactGroup } from '../../api/types.ts';
import { DataTable } from '../../ui/data-table.tsx';
import { TextField } from '../../ui/fields.tsx';
import { ErrorNotice } from '../../ui/notice.tsx';
import { usePagedList } from '../../ui/use-paged-list.ts';
import { CreateForm, useCreateForm } from '../admin/create-form.tsx';
import { useAction } from '../../ui/use-action.ts';

export function Groups({ canChange, onChanged, membershipChanges }: { canChange: boolean; onChanged: () => void; membershipChanges: number }) {
  const list = usePagedList<ContactGroup>('/contact-groups');
  // Members were added or removed above: the counts read again.
  useEffect(() => {
    if (membershipChanges > 0) list.reload();
  }, [membershipChanges]);
  const changed = () => {
    list.restart();
    onChanged();
  };
  const remove = useAction(changed);
  const form = useCreateForm({ name: '' }, (values) => post<ContactGroup>('/contact-groups', { name: values.name }), changed, { name: 'Group name' });
  return (
    <section aria-labelledby="contact-groups">
      <h2 id="contact-groups">Groups</h2>
      <ErrorNotice error={remove.error} />
      <DataTable
        list={list}
        caption="Contact groups"
        empty="No groups yet."
        columns={[
          { header: 'Name', rowHeader: true, cell: (group) => group.name },
          { header: 'Members', numeric: true, cell: (group) => group.members },
          canChange && {
            header: 'Actions',
            cell: (group) => (
              <button type="button" class="button button-small button-danger" disabled={remove.busy} aria-label={`Delete group ${group.name}`} onClick={() => window.confirm(`Delete the group ${group.name}? Its contacts stay.`) && void remove.run(() => del(`/contact-groups/${group.id}`))}>
                Delete
              </button>
            ),
          },
        ]}
      />
      {canChange && (
        <CreateForm id="new-group" title="New group" action="Create group" form={form}>
          <TextField label="Group name" name="group_name" autoComplete="off" value={form.values.name} onValue={form.set('name')} error={form.error.field('name')} />
        </CreateForm>
      )}
    </section>
  );
}
