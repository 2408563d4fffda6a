// The account's opt-out: numbers that sent STOP (or were added here) and may not be sent to, and
// the settings of keyword handling (docs/opt-out.md). Everyone sees the list; owners change it.
import { useEffect, useState } from 'preact/hooks';
import { del, get, patch, post } from '../api.ts';
import type { OptOutSettings, Suppression } from '../api/types.ts';
import { useSession } from '../session.tsx';
import { CheckboxField, TextField } from '../ui/fields.tsx';
import { formatTime } from '../ui/format.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { useLoad } from '../ui/use-load.ts';
import { usePagedList } from '../ui/use-paged-list.ts';
import { formErrors } from '../ui/form-errors.ts';
import { CreateForm, useCreateForm } from './admin/create-form.tsx';
import { useAction } from '../ui/use-action.ts';
import { ImportForm } from './opt-out/import-form.tsx';

const SOURCES: Record<Suppression['source'], string> = { keyword: 'sent a keyword', api: 'added by hand', import: 'imported' };

export function OptOutPage(_props: Record<string, string>) {
  const session = useSession();
  const list = usePagedList<Suppression>('/suppressions');
  const remove = useAction(list.reload);
  const confirmRemove = (row: Suppression) => {
    if (!window.confirm(`Take ${row.phone} off the list? Do it only if the person asked to hear from you again.`)) return;
    void remove.run(() => del(`/suppressions/${encodeURIComponent(row.phone)}`));
  };
  return (
    <Page title="Opt-out">
      <p class="muted">
        Numbers that sent STOP (or another stop keyword) to one of your phones, or were added here, are never sent to. START takes a number off the list.
      </p>
      <ErrorNotice error={remove.error} />
      <DataTable
        list={list}
        caption="Suppressed numbers"
        empty="No number has opted out."
        class="stack-on-phone"
        columns={[
          { header: 'Number', rowHeader: true, class: 'mono', cell: (row) => row.phone },
          { header: 'How', cell: (row) => (row.keyword ? `${SOURCES[row.source]} (${row.keyword})` : SOURCES[row.source]) },
          { header: 'Since', class: 'admin-nowrap', cell: (row) => formatTime(row.created_at) },
          session.canChange && {
            header: 'Remove',
            cell: (row) => (
              <button type="button" class="button button-small button-danger" disabled={remove.busy} aria-label={`Remove ${row.phone}`} onClick={() => confirmRemove(row)}>
                Remove
              </button>
            ),
          },
        ]}
      />
      <p>
        <a href="/api/ext/v1/suppressions/export" download="suppressions.csv">
          Export the list as CSV
        </a>
      </p>
      {session.canChange && <AddForm onAdded={list.restart} />}
      {session.canChange && <ImportForm onImported={list.restart} />}
      <SettingsForm canChange={session.canChange} />
    </Page>
  );
}

function AddForm({ onAdded }: { onAdded: () => void }) {
  const form = useCreateForm({ phone: '' }, (values) => post<Suppression>('/suppressions', values), onAdded, { phone: 'Number' });
  return (
    <CreateForm id="new-suppression" title="Suppress a number" action="Suppress number" form={form}>
      <TextField label="Number" name="phone" autoComplete="off" value={form.values.phone} onValue={form.set('phone')} hint="International format, such as +79161234567." error={form.error.field('phone')} />
    </CreateForm>
  );
}

interface SettingsValues {
  enabled: boolean;
  extra_keywords: string;
  help_text: string;
  stop_reply: string;
  start_reply: string;
}

const LABELS = { enabled: 'Handle STOP, START and HELP', extra_keywords: 'Your own stop words', help_text: 'Answer to HELP', stop_reply: 'Confirmation after STOP', start_reply: 'Confirmation after START' };

function SettingsForm({ canChange }: { canChange: boolean }) {
  const loaded = useLoad(() => get<OptOutSettings>('/account/opt-out'), []);
  const [values, setValues] = useState<SettingsValues>();
  const [saved, setSaved] = useState(false);
  // Reloaded after a save that worked only: after a refusal the form keeps what was typed, beside the error.
  const save = useAction();
  useEffect(() => {
    const data = loaded.data;
    if (data) setValues({ enabled: data.enabled, extra_keywords: data.extra_keywords.join(', '), help_text: data.help_text ?? '', stop_reply: data.stop_reply ?? '', start_reply: data.start_reply ?? '' });
  }, [loaded.data]);
  if (!values) return <ErrorNotice error={loaded.error} />;
  const set = <K extends keyof SettingsValues>(field: K) => (value: SettingsValues[K]) => {
    setSaved(false);
    setValues({ ...values, [field]: value });
  };
  const errors = formErrors(save.error, LABELS);
  const submit = async (event: Event) => {
    event.preventDefault();
    const done = await save.run(() =>
      patch<OptOutSettings>('/account/opt-out', {
        enabled: values.enabled,
        extra_keywords: values.extra_keywords.split(',').map((word) => word.trim()).filter(Boolean),
        help_text: values.help_text.trim() || null,
        stop_reply: values.stop_reply.trim() || null,
        start_reply: values.start_reply.trim() || null,
      }),
    );
    setSaved(done !== undefined);
    if (done !== undefined) loaded.reload();
  };
  return (
    <form class="card admin-form" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="opt-out-settings">
      <h2 id="opt-out-settings">Settings</h2>
      <ErrorNotice error={errors.notice} />
      <fieldset disabled={!canChange || save.busy}>
        <CheckboxField label={LABELS.enabled} name="enabled" checked={values.enabled} onChecked={set('enabled')} hint="On for every new account. Off: received keywords are only stored; the list still applies." />
        <TextField label={LABELS.extra_keywords} name="extra_keywords" value={values.extra_keywords} onValue={set('extra_keywords')} hint="Comma separated, besides STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT." error={errors.field('extra_keywords')} />
        <TextField label={LABELS.help_text} name="help_text" value={values.help_text} onValue={set('help_text')} hint="Empty: HELP gets no answer." error={errors.field('help_text')} />
        <TextField label={LABELS.stop_reply} name="stop_reply" value={values.stop_reply} onValue={set('stop_reply')} hint="Sent through the phone and SIM that received STOP. Empty: none." error={errors.field('stop_reply')} />
        <TextField label={LABELS.start_reply} name="start_reply" value={values.start_reply} onValue={set('start_reply')} hint="Empty: none." error={errors.field('start_reply')} />
      </fieldset>
      {canChange && (
        <button type="submit" class="button button-primary" disabled={save.busy}>
          Save settings
        </button>
      )}
      {saved && <p role="status">Settings saved.</p>}
    </form>
  );
}
