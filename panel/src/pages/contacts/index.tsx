// The account's address book: contacts (filtered by tag), a CSV import previewed row by row
// before anything is written, groups and message templates. Owners change them; viewers read.
import { del, get, post, type Page as ApiPage } from '../../api.ts';
import type { Contact, ContactGroup, MessageTemplate } from '../../api/types.ts';
import { useSession } from '../../session.tsx';
import { DataTable } from '../../ui/data-table.tsx';
import { TextField } from '../../ui/fields.tsx';
import { ErrorNotice } from '../../ui/notice.tsx';
import { Page } from '../../ui/page.tsx';
import { usePagedList } from '../../ui/use-paged-list.ts';
import { CreateForm, useCreateForm } from '../admin/create-form.tsx';
import { useAction } from '../admin/use-action.ts';
import { useState } from 'preact/hooks';
import { ContactImport } from './import.tsx';
import { Groups } from './groups.tsx';
import { Templates } from './templates.tsx';
import { ContactSend } from './send.tsx';
import { useLoad } from '../../ui/use-load.ts';

export function ContactsPage(_props: Record<string, string>) {
  const session = useSession();
  const [tag, setTag] = useState('');
  const list = usePagedList<Contact>('/contacts', { tag: tag.trim() || undefined });
  const remove = useAction(list.reload);
  const confirmRemove = (contact: Contact) => {
    if (!window.confirm(`Delete the contact ${contact.name || contact.phone}? Its SMS stay.`)) return;
    void remove.run(() => del(`/contacts/${contact.id}`));
  };
  return (
    <Page title="Contacts">
      <form class="filters card" role="search" aria-label="Filter contacts" onSubmit={(event) => event.preventDefault()}>
        <TextField label="Tag" name="tag" value={tag} onValue={setTag} hint="Only contacts with this tag." />
      </form>
      <ErrorNotice error={remove.error} />
      <DataTable
        list={list}
        class="contacts-table"
        empty={tag ? 'No contact has this tag.' : 'No contacts yet. Add one below or import a CSV file.'}
        columns={[
          { header: 'Name', rowHeader: true, cell: (contact) => contact.name || <span class="muted">unnamed</span> },
          { header: 'Number', class: 'mono sms-nowrap', cell: (contact) => contact.phone },
          { header: 'Tags', cell: (contact) => contact.tags.join(', ') },
          { header: 'Fields', cell: (contact) => Object.entries(contact.fields).map(([key, value]) => `${key}: ${value}`).join('; ') },
          session.canChange && {
            header: 'Actions',
            cell: (contact) => (
              <button type="button" class="button button-small button-danger" disabled={remove.busy} aria-label={`Delete ${contact.name || contact.phone}`} onClick={() => confirmRemove(contact)}>
                Delete
              </button>
            ),
          },
        ]}
      />
      {session.canChange && <NewContact onCreated={list.restart} />}
      {session.canChange && <ContactImport onImported={list.restart} />}
      {session.canChange && <SendSection />}
      <Groups canChange={session.canChange} />
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
function SendSection() {
  const groups = useLoad(() => get<ApiPage<ContactGroup>>('/contact-groups', { limit: 100 }), []);
  const templates = useLoad(() => get<ApiPage<MessageTemplate>>('/templates', { limit: 100 }), []);
  return <ContactSend groups={groups.data?.data ?? []} templates={templates.data?.data ?? []} />;
}
