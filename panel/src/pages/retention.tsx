// How long the account keeps what its messages say, and a copy of everything they hold
// (docs/retention.md). Everyone sees the setting and may export; owners change it. Removed text
// cannot come back, so the form says so where the number of days is chosen.
import { useEffect, useState } from 'preact/hooks';
import { get, put } from '../api.ts';
import type { RetentionSetting } from '../api/types.ts';
import { useSession } from '../session.tsx';
import { Card } from '../ui/card.tsx';
import { CheckboxField, NumberField, ToggledFields } from '../ui/fields.tsx';
import { formatTime } from '../ui/format.ts';
import { formErrors } from '../ui/form-errors.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { useAction } from '../ui/use-action.ts';
import { useLoad } from '../ui/use-load.ts';

interface Values {
  limited: boolean;
  keep_text_days: string;
  hash_recipients: boolean;
}

const LABELS = { limited: 'Remove message text after a time', keep_text_days: 'Days to keep text', hash_recipients: 'Then keep numbers only as hashes' };

export function RetentionPage(_props: Record<string, string>) {
  const session = useSession();
  const loaded = useLoad(() => get<RetentionSetting>('/account/retention'), []);
  const [values, setValues] = useState<Values>();
  const [saved, setSaved] = useState(false);
  // Reloaded after a save that worked only: after a refusal the form keeps what was typed, beside the error.
  const save = useAction();
  useEffect(() => {
    const data = loaded.data;
    if (data) setValues({ limited: data.keep_text_days !== null, keep_text_days: String(data.keep_text_days ?? 90), hash_recipients: data.hash_recipients });
  }, [loaded.data]);
  const set = <K extends keyof Values>(field: K) => (value: Values[K]) => {
    setSaved(false);
    setValues({ ...values!, [field]: value });
  };
  const errors = formErrors(save.error, LABELS);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!values) return;
    // The API checks the number. What is not one goes as typed, for the API to refuse by name:
    // turned into NaN it would travel as null, which means keeping text for ever.
    const typed = values.keep_text_days.trim();
    const keepTextDays = !values.limited ? null : typed !== '' && !Number.isNaN(Number(typed)) ? Number(typed) : typed;
    const done = await save.run(() => put<RetentionSetting>('/account/retention', { keep_text_days: keepTextDays, hash_recipients: values.limited && values.hash_recipients }));
    setSaved(done !== undefined);
    if (done !== undefined) loaded.reload();
  };
  return (
    <Page title="Retention">
      <p class="muted">
        An hourly sweep removes what messages older than the chosen number of days say: the text of sent and received SMS, MMS subjects and media, and finished webhook
        deliveries. Their statuses, times and counts stay for statistics. Contacts and the opt-out list are kept. Removed text cannot be brought back.
      </p>
      <ErrorNotice error={loaded.error} />
      {values && (
        <form class="card admin-form" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="retention-setting">
          <h2 id="retention-setting">Message text</h2>
          <ErrorNotice error={errors.notice} />
          <fieldset disabled={!session.canChange || save.busy}>
            <ToggledFields label={LABELS.limited} name="limited" checked={values.limited} onChecked={set('limited')} hint="Off: text is kept for ever.">
              <NumberField label={LABELS.keep_text_days} name="keep_text_days" value={values.keep_text_days} onValue={set('keep_text_days')} hint="1 to 36500." error={errors.field('keep_text_days')} />
            </ToggledFields>
            {values.limited && (
              <CheckboxField
                label={LABELS.hash_recipients}
                name="hash_recipients"
                checked={values.hash_recipients}
                onChecked={set('hash_recipients')}
                hint="Once a message's text is removed, its numbers (and those of quiet conversations and old calls) are kept as hashes: counts per number still work, the numbers cannot be read."
              />
            )}
          </fieldset>
          {session.canChange && (
            <button type="submit" class="button button-primary" disabled={save.busy}>
              Save
            </button>
          )}
          {saved && <p role="status">Saved. The next hourly sweep applies it.</p>}
          {loaded.data?.updated_at && <p class="muted">Last changed {formatTime(loaded.data.updated_at)}.</p>}
        </form>
      )}
      <Card title="Export" class="admin-form">
        <p>Everything the account's messages, conversations, contacts and templates hold, as it is now.</p>
        <p>
          <a href="/api/ext/v1/account/export?format=csv" download="account-export.csv">
            Export as CSV
          </a>{' '}
          ·{' '}
          <a href="/api/ext/v1/account/export" download="account-export.json">
            Export as JSON
          </a>
        </p>
      </Card>
    </Page>
  );
}
