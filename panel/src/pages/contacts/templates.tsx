// The account's message templates; owners write them with the segment count of the text as
// written (placeholders change it per contact: the send's preview counts each).
import { del, post } from '../../api.ts';
import type { MessageTemplate } from '../../api/types.ts';
import { DataTable } from '../../ui/data-table.tsx';
import { Field, TextField } from '../../ui/fields.tsx';
import { ErrorNotice } from '../../ui/notice.tsx';
import { usePagedList } from '../../ui/use-paged-list.ts';
import { CreateForm, useCreateForm } from '../admin/create-form.tsx';
import { useAction } from '../../ui/use-action.ts';
import { SegmentCount } from '../sms/segment-count.tsx';

export function Templates({ canChange }: { canChange: boolean }) {
  const list = usePagedList<MessageTemplate>('/templates');
  const remove = useAction(list.reload);
  const form = useCreateForm({ name: '', text: '' }, (values) => post<MessageTemplate>('/templates', values), list.restart, { name: 'Template name', text: 'Template text' });
  return (
    <section aria-labelledby="message-templates">
      <h2 id="message-templates">Templates</h2>
      <ErrorNotice error={remove.error} />
      <DataTable
        list={list}
        caption="Message templates"
        empty="No templates yet."
        columns={[
          { header: 'Name', rowHeader: true, cell: (template) => template.name },
          { header: 'Text', class: 'sms-text-cell', cell: (template) => template.text },
          canChange && {
            header: 'Actions',
            cell: (template) => (
              <button type="button" class="button button-small button-danger" disabled={remove.busy} aria-label={`Delete template ${template.name}`} onClick={() => window.confirm(`Delete the template ${template.name}?`) && void remove.run(() => del(`/templates/${template.id}`))}>
                Delete
              </button>
            ),
          },
        ]}
      />
      {canChange && (
        <CreateForm id="new-template" title="New template" action="Create template" form={form}>
          <TextField label="Template name" name="template_name" autoComplete="off" value={form.values.name} onValue={form.set('name')} error={form.error.field('name')} />
          <Field label="Template text" error={form.error.field('text')} hint={<><SegmentCount text={form.values.text} /> as written · placeholders: {'{{name}} {{first_name}} {{last_name}} {{phone}} {{fields.<name>}}'}</>}>
            {(aria) => <textarea {...aria} name="template_text" rows={3} value={form.values.text} onInput={(event) => form.set('text')(event.currentTarget.value)} />}
          </Field>
        </CreateForm>
      )}
    </section>
  );
}
