// The account's address book: contacts (filtered by tag or group, added to and removed from
// groups), a CSV import previewed row by row before anything is written, groups, message
// templates, and a send to a group or a tag. Owners change them; viewers read.
import { del, get, post, type Page as ApiPage } from '../../api.ts';
import type { Contact, ContactGroup, MessageTemplate } from '../../api/types.ts';
import { useSession } from '../../session.tsx';
import { DataTable } from '../../ui/data-table.tsx';
import { SelectField, TextField } from '../../ui/fields.tsx';
import { ErrorNotice } from '../../ui/notice.tsx';
import { Page } from '../../ui/page.tsx';
import { usePagedList } from '../../ui/use-paged-list.ts';
import { CreateForm, useCreateForm } from '../admin/create-form.tsx';
import { useAction } from '../../ui/use-action.ts';
import { useState } from 'preact/hooks';
import { ContactImport } from './import.tsx';
import { Groups } from './groups.tsx';
import { Templates } from './templates.tsx';
import { ContactSend } from './send.tsx';
import { useLoad } from '../../ui/use-load.ts';

export function ContactsPage(_props: Record<string, string>) {
  const session = useSession();
  const [tag, setTag] = useState('');
  const [groupId, setGroupId] = useState('');
  const list = usePagedList<Contact>('/contacts', { tag: tag.trim() || undefined, group_id: groupId || undefined });
  const groups = useLoad(() => get<ApiPage<ContactGroup>>('/contact-groups', { limit: 100 }), []);
  const groupRows = groups.data?.data ?? [];
  const remove = useAction(list.reload);
  // Member counts change too: the groups below read again.
  const [membershipChanges, setMembershipChanges] = useState(0);
  const membership = useAction(() => {
    list.reload();
    setMembershipChanges((count) => count + 1);
  });
  const addTo = (contact: Contact, group: string) => group && void membership.run(() => post(`/contact-groups/${group}/members`, { contact_ids: [contact.id] }));
  const removeFrom = (contact: Contact) => void membership.run(() => post(`/contact-groups/${groupId}/members/remove`, { contact_ids: [contact.id] }));
  const confirmRemove = (contact: Contact) => {
    if (!window.confirm(`Delete the contact ${contact.name || contact.phone}? Its SMS stay.`)) return;
    void remove.run(() => del(`/contacts/${contact.id}`));
  };
  return (
    <Page title="Contacts">
      <form class="filters card" role="search" aria-label="Filter contacts" onSubmit={(event) => event.preventDefault()}>
        <div class="form-row">
          <TextField label="Tag" name="tag" value={tag} onValue={setTag} hint="Only contacts with this tag." />
          <SelectField label="Group" name="group_id" value={groupId} onValue={setGroupId} options={[{ value: '', label: 'All contacts' }, ...groupRows.map((group) => ({ value: group.id, label: group.name }))]} />
        </div>
      </form>
      <ErrorNotice error={remove.error ?? membership.error} />
      <DataTable
        list={list}
        class="contacts-table"
        empty={groupId ? 'No contact in this group.' : tag ? 'No contact has this tag.' : 'No contacts yet. Add one below or import a CSV file.'}
        columns={[
          { header: 'Name', rowHeader: true, cell: (contact) => contact.name || <span class="muted">unnamed</span> },
          { header: 'Number', class: 'mono sms-nowrap', cell: (contact) => contact.phone },
          { header: 'Tags', cell: (contact) => contact.tags.join(', ') },
          { header: 'Fields', cell: (contact) => Object.entries(contact.fields).map(([key, value]) => `${key}: ${value}`).join('; ') },
          session.canChange && {
            header: 'Actions',
            cell: (contact) => (
              <div class="row-actions">
                {groupId ? (
                  <button type="button" class="button button-small" disabled={membership.busy} aria-label={`Remove ${contact.name || contact.phone} from the group`} onClick={() => removeFrom(contact)}>
                    Remove from group
                  </button>
                ) : (
                  groupRows.length > 0 && (
                    <select aria-label={`Add ${contact.name || contact.phone} to a group`} value="" disabled={membership.busy} onChange={(event) => addTo(contact, event.currentTarget.value)}>
                      <option value="">Add to group…</option>
                      {groupRows.map((group) => (
                        <option key={group.id} value={group.id}>
                          {group.name}
                        </option>
                      ))}
                    </select>
                  )
                )}
                <button type="button" class="button button-small button-danger" disabled={remove.busy} aria-label={`Delete ${contact.name || contact.phone}`} onClick={() => confirmRemove(contact)}>
                  Delete
                </button>
              </div>
            ),
          },
        ]}
      />
      {session.canChange && <NewContact onCreated={list.restart} />}
      {session.canChange && <ContactImport onImported={list.restart} />}
      {session.canChange && <SendSection groups={groupRows} />}
      <Groups canChange={session.canChange} onChanged={groups.reload} membershipChanges={membershipChanges} />
      <Templates canChange={session.canChange} />
    </Page>
  );
}

function NewContact({ onCreated }: { onCreated: () => void }) {
  const form = useCreateForm(
    { name: '', phone: '', tags: '' },
    (values) => post<Contact>('/contacts', { name: values.name, phone: values.phone, tags: values.tags.split(/[,;]/).map((tag) => tag.trim()).filter(Boolean) }),
    onCreated,
    { name: 'Name', phone: 'Number', tags: 'Tags' },
  );
  const { values, set, error } = form;
  return (
    <CreateForm id="new-contact" title="New contact" action="Add contact" form={form}>
      <div class="form-row">
        <TextField label="Name" name="name" autoComplete="off" value={values.name} onValue={set('name')} error={error.field('name')} />
        <TextField label="Number" name="phone" autoComplete="off" value={values.phone} onValue={set('phone')} hint="International format such as +491701234567." error={error.field('phone')} />
        <TextField label="Tags" name="tags" autoComplete="off" value={values.tags} onValue={set('tags')} hint="Separated by commas." error={error.field('tags')} />
      </div>
    </CreateForm>
  );
}

/** The send form, with the groups and templates to choose from (the first 100 of each). */
function SendSection({ groups }: { groups: ContactGroup[] }) {
  const templates = useLoad(() => get<ApiPage<MessageTemplate>>('/templates', { limit: 100 }), []);
  return <ContactSend groups={groups} templates={templates.data?.data ?? []} />;
}
