// Sending to a group or a tag: a template (or a text with placeholders) previewed per recipient,
// its rendered text and segment count or what is missing, by the API's dry run; the send itself,
// a bulk send underneath, once no recipient has a problem, or, ticked, to those without one (the
// API answers why each other one was left out).
import { useState } from 'preact/hooks';
import { request } from '../../api.ts';
import type { ContactGroup, ContactSendCheck, MessageTemplate } from '../../api/types.ts';
import { CheckboxField, Field, SelectField, TextField } from '../../ui/fields.tsx';
import { RefusedRows, type RefusedRow } from '../sms/refused-rows.tsx';
import { ErrorNotice, SuccessNotice } from '../../ui/notice.tsx';
import { Table } from '../../ui/table.tsx';
import { useAction } from '../../ui/use-action.ts';
import { Card } from '../../ui/card.tsx';

interface SendForm {
  groupId: string;
  tag: string;
  templateId: string;
  message: string;
}

export function ContactSend({ groups, templates }: { groups: ContactGroup[]; templates: MessageTemplate[] }) {
  const [form, setForm] = useState<SendForm>({ groupId: '', tag: '', templateId: '', message: '' });
  const [preview, setPreview] = useState<ContactSendCheck[]>();
  const [sent, setSent] = useState<number>();
  const [partial, setPartial] = useState(false);
  const [refused, setRefused] = useState<RefusedRow[]>([]);
  const action = useAction();
  const error = action.error;
  const set = (field: keyof SendForm) => (value: string) => {
    setForm((current) => ({ ...current, [field]: value }));
    setPreview(undefined);
  };
  const body = () => ({
    ...(form.groupId ? { group_id: form.groupId } : { tag: form.tag.trim() }),
    ...(form.templateId ? { template_id: form.templateId } : { message: form.message }),
  });
  const run = async (dryRun: boolean) => {
    setSent(undefined);
    setRefused([]);
    const query = dryRun ? { query: { dry_run: true } } : partial ? { query: { partial: true } } : {};
    const answer = await action.run(() => request<{ data: ContactSendCheck[]; errors?: RefusedRow[] }>('POST', '/contacts/send', { body: body(), ...query }));
    if (!answer) return;
    if (dryRun) setPreview(answer.data);
    else {
      setSent(answer.data.length);
      setRefused(answer.errors ?? []);
      setPreview(undefined);
    }
  };
  const wrong = preview?.filter((entry) => !entry.valid).length ?? 0;
  return (
    <Card class="admin-form" title="Send to a group or a tag">
      {sent !== undefined && <SuccessNotice>Created {sent} SMS, one per recipient.</SuccessNotice>}
      <RefusedRows rows={refused} what="recipients" />
      <ErrorNotice error={error} />
      <div class="form-row">
        <SelectField label="Group" name="send_group" value={form.groupId} onValue={set('groupId')} options={[{ value: '', label: 'None: send to a tag' }, ...groups.map((group) => ({ value: group.id, label: `${group.name} (${group.members})` }))]} />
        {!form.groupId && <TextField label="Tag" name="send_tag" value={form.tag} onValue={set('tag')} error={error?.forField('tag')} />}
      </div>
      <SelectField label="Template" name="send_template" value={form.templateId} onValue={set('templateId')} options={[{ value: '', label: 'None: write the text' }, ...templates.map((template) => ({ value: template.id, label: template.name }))]} />
      {!form.templateId && (
        <Field label="Text" hint="Placeholders as in templates: {{first_name}}, {{fields.company}}…" error={error?.forField('message')}>
          {(aria) => <textarea {...aria} name="send_text" rows={3} value={form.message} onInput={(event) => set('message')(event.currentTarget.value)} />}
        </Field>
      )}
      <button type="button" class="button" disabled={action.busy} onClick={() => void run(true)}>
        Preview
      </button>
      {preview && (
        <>
          <Table
            class="data-table contact-send-preview"
            caption={`${preview.length} recipients, ${wrong} with problems`}
            rows={preview}
            rowKey={(entry) => entry.contact_id}
            rowAttributes={(entry) => ({ 'data-valid': String(entry.valid) })}
            columns={[
              { header: 'Number', class: 'mono', cell: (entry) => entry.phone },
              { header: 'Text', cell: (entry) => (entry.valid ? entry.message : entry.errors.map((problem) => problem.message).join('; ')) },
              { header: 'SMS', cell: (entry) => (entry.valid ? `${entry.segments} (${entry.encoding === 'gsm7' ? 'GSM 7-bit' : 'UCS-2'})` : '') },
            ]}
          />
          <CheckboxField label="Send to the recipients without problems and leave out the others" name="send_partial" checked={partial} onChecked={setPartial} />
          <button
            type="button"
            class="button button-primary"
            disabled={action.busy || wrong === preview.length || (!partial && wrong > 0)}
            onClick={() => void run(false)}
          >
            Send {partial ? preview.length - wrong : preview.length} SMS
          </button>
        </>
      )}
    </Card>
  );
}
