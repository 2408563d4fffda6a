// Sending to a group or a tag: a template (or a text with placeholders) previewed per recipient,
// its rendered text and segment count or what is missing, by the API's dry run; the send itself,
// a bulk send underneath, only once no recipient has a problem.
import { useState } from 'preact/hooks';
import { ApiError, request } from '../../api.ts';
import type { ContactGroup, ContactSendCheck, MessageTemplate } from '../../api/types.ts';
import { Field, SelectField, TextField } from '../../ui/fields.tsx';
import { ErrorNotice, SuccessNotice } from '../../ui/notice.tsx';

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
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const set = (field: keyof SendForm) => (value: string) => {
    setForm((current) => ({ ...current, [field]: value }));
    setPreview(undefined);
  };
  const body = () => ({
    ...(form.groupId ? { group_id: form.groupId } : { tag: form.tag.trim() }),
    ...(form.templateId ? { template_id: form.templateId } : { message: form.message }),
  });
  const run = async (dryRun: boolean) => {
    setBusy(true);
    setError(undefined);
    setSent(undefined);
    try {
      const answer = await request<{ data: ContactSendCheck[] }>('POST', '/contacts/send', { body: body(), ...(dryRun ? { query: { dry_run: true } } : {}) });
      if (dryRun) setPreview(answer.data);
      else {
        setSent(answer.data.length);
        setPreview(undefined);
      }
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'network', 'The gateway could not be reached.'));
    } finally {
      setBusy(false);
    }
  };
  const wrong = preview?.filter((entry) => !entry.valid).length ?? 0;
  return (
    <section class="card admin-form" aria-labelledby="contact-send">
      <h2 id="contact-send">Send to a group or a tag</h2>
      {sent !== undefined && <SuccessNotice>Created {sent} SMS, one per recipient.</SuccessNotice>}
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
      <button type="button" class="button" disabled={busy} onClick={() => void run(true)}>
        Preview
      </button>
      {preview && (
        <>
          <table class="data-table contact-send-preview">
            <caption>{preview.length} recipients, {wrong} with problems</caption>
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Text</th>
                <th scope="col">SMS</th>
              </tr>
            </thead>
            <tbody>
              {preview.map((entry) => (
                <tr key={entry.contact_id} data-valid={String(entry.valid)}>
                  <td class="mono">{entry.phone}</td>
                  <td>{entry.valid ? entry.message : entry.errors.map((problem) => problem.message).join('; ')}</td>
                  <td>{entry.valid ? `${entry.segments} (${entry.encoding === 'gsm7' ? 'GSM 7-bit' : 'UCS-2'})` : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <button type="button" class="button button-primary" disabled={busy || wrong > 0} onClick={() => void run(false)}>
            Send {preview.length} SMS
          </button>
        </>
      )}
    </section>
  );
}
