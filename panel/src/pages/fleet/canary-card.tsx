// The account's canary rounds on the Fleet page: on or off, how often, how long a probe waits,
// when the next and last rounds are; owners change them and may run a round now. A gateway that
// serves no canary rounds (404) shows "not available".
import { useEffect, useState } from 'preact/hooks';
import { get, patch, post } from '../../api.ts';
import { unlessAbsent } from '../../api/optional.ts';
import type { CanarySettings } from '../../api/types.ts';
import { Card } from '../../ui/card.tsx';
import { CheckboxField, NumberField } from '../../ui/fields.tsx';
import { formErrors } from '../../ui/form-errors.ts';
import { formatTime } from '../../ui/format.ts';
import { ErrorNotice } from '../../ui/notice.tsx';
import { useAction } from '../../ui/use-action.ts';
import { useLoad } from '../../ui/use-load.ts';

const LABELS = { enabled: 'Run canary rounds', interval_minutes: 'Minutes between rounds', timeout_seconds: 'Seconds a probe waits' };

interface Values {
  enabled: boolean;
  interval_minutes: string;
  timeout_seconds: string;
}

export function CanaryCard({ canChange }: { canChange: boolean }) {
  const loaded = useLoad(() => unlessAbsent(() => get<CanarySettings>('/account/canary')), []);
  const [values, setValues] = useState<Values>();
  const [said, setSaid] = useState<string>();
  // Reloaded after a save that worked only: after a refusal the form keeps what was typed, beside the error.
  const save = useAction();
  const run = useAction(loaded.reload);
  useEffect(() => {
    const data = loaded.data;
    if (data) setValues({ enabled: data.enabled, interval_minutes: String(data.interval_minutes), timeout_seconds: String(data.timeout_seconds) });
  }, [loaded.data]);

  if (loaded.data === null) {
    return (
      <Card title="Canary rounds" class="canary-card">
        <p data-canary-settings="not-available">Canary rounds: not available on this gateway.</p>
      </Card>
    );
  }
  if (!values || !loaded.data) {
    return (
      <Card title="Canary rounds" class="canary-card">
        {loaded.error ? <ErrorNotice error={loaded.error} /> : <p class="muted">Loading…</p>}
      </Card>
    );
  }
  const settings = loaded.data;
  const set = <K extends keyof Values>(field: K) => (value: Values[K]) => {
    setSaid(undefined);
    setValues({ ...values, [field]: value });
  };
  const errors = formErrors(save.error, LABELS);
  const submit = async (event: Event) => {
    event.preventDefault();
    // Numbers are sent as typed: the API judges them, and its message shows beside the field.
    const saved = await save.run(() =>
      patch<CanarySettings>('/account/canary', { enabled: values.enabled, interval_minutes: Number(values.interval_minutes), timeout_seconds: Number(values.timeout_seconds) }),
    );
    if (saved) {
      setSaid('Settings saved.');
      loaded.reload();
    }
  };
  const runNow = async () => {
    setSaid(undefined);
    const started = await run.run(async () => (await post('/account/canary/run'), true));
    if (started) setSaid('A round started: each SIM that can take part sends its canary now.');
  };
  return (
    <Card title="Canary rounds" class="canary-card">
      <p class="hint">
        In a round each SIM whose number is known sends a short coded SMS to another SIM of the account; a SIM whose canaries keep failing is marked degraded
        and given no new work until one passes again.
      </p>
      <dl class="facts">
        <dt>Next round</dt>
        <dd data-testid="canary-next">{settings.enabled ? formatTime(settings.next_round_at) : 'rounds are off'}</dd>
        <dt>Last round</dt>
        <dd data-testid="canary-last">{formatTime(settings.last_round_at)}</dd>
      </dl>
      <form onSubmit={(event) => void submit(event)} noValidate aria-label="Canary settings">
        <ErrorNotice error={errors.notice} />
        <fieldset disabled={!canChange || save.busy}>
          <CheckboxField label={LABELS.enabled} name="enabled" checked={values.enabled} onChecked={set('enabled')} hint="Off by default." />
          <NumberField label={LABELS.interval_minutes} name="interval_minutes" value={values.interval_minutes} onValue={set('interval_minutes')} hint="1 to 1440." error={errors.field('interval_minutes')} />
          <NumberField label={LABELS.timeout_seconds} name="timeout_seconds" value={values.timeout_seconds} onValue={set('timeout_seconds')} hint="10 to 3600." error={errors.field('timeout_seconds')} />
        </fieldset>
        {canChange && (
          <p class="page-actions">
            <button type="submit" class="button button-primary" disabled={save.busy}>
              Save settings
            </button>
            <button type="button" class="button" disabled={run.busy} onClick={() => void runNow()}>
              Run a round now
            </button>
          </p>
        )}
      </form>
      <ErrorNotice error={run.error} />
      {said && <p role="status">{said}</p>}
    </Card>
  );
}
