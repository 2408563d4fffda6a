// A device's settings, one labelled field per field PATCH /devices/{id}/settings takes. Viewers
// see the same form disabled, so they can read every setting. The API judges every value and
// its messages appear beside the fields.
import { useState } from 'preact/hooks';
import { ApiError, patch } from '../../api.ts';
import { CheckboxField, SelectField, TextField } from '../../ui/fields.tsx';
import { ErrorNotice, SuccessNotice } from '../../ui/notice.tsx';
import type { DeviceDetail } from '../../api/types.ts';
import { isPaused } from './paused.ts';
import { settingsPatch, settingsValues, type SettingsValues } from './settings-values.ts';

/** SIM slots the API accepts (0-2) besides the two choices that name no slot. */
const SIM_SLOTS = [0, 1, 2];

export function SettingsForm({ device, canChange, onSaved }: { device: DeviceDetail; canChange: boolean; onSaved: (device: DeviceDetail) => void }) {
  // The baseline is the device as loaded or last saved; live reloads leave edits in progress alone.
  const [initial, setInitial] = useState(() => settingsValues(device));
  const [values, setValues] = useState(initial);
  const [error, setError] = useState<ApiError | string>();
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof SettingsValues>(key: K) => (value: SettingsValues[K]) => {
    setSaved(false);
    setValues((previous) => ({ ...previous, [key]: value }));
  };
  const fieldError = (field: string) => (error instanceof ApiError ? error.forField(field) : undefined);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setSaved(false);
    const body = settingsPatch(initial, values);
    if (Object.keys(body).length === 0) return setError('Nothing changed.');
    setBusy(true);
    try {
      const updated = await patch<DeviceDetail>(`/devices/${device.id}/settings`, body);
      const next = settingsValues(updated);
      setInitial(next);
      setValues(next);
      setSaved(true);
      onSaved(updated);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : String(caught));
    } finally {
      setBusy(false);
    }
  };

  const simOptions = [
    { value: '-2', label: "The phone's default" },
    { value: '-1', label: 'A random SIM' },
    ...SIM_SLOTS.map((slot) => {
      const card = device.sim_cards.find((sim) => sim.index === slot);
      return { value: String(slot), label: `SIM ${slot + 1}${card?.name_operator ? ` (${card.name_operator})` : card ? '' : ' (not reported)'}` };
    }),
  ];
  const paused = isPaused(device);

  return (
    <form class="card device-settings" onSubmit={submit} noValidate aria-labelledby="settings-heading">
      <h2 id="settings-heading" class="card-heading">
        Settings
      </h2>
      {!canChange && <p class="muted">Viewers cannot change settings; they are shown for reading.</p>}
      {saved && <SuccessNotice>Settings saved.</SuccessNotice>}
      <ErrorNotice error={error} />
      <fieldset disabled={!canChange || busy} class="device-settings-body">
        <fieldset>
          <legend>Sending</legend>
          <TextField
            label="Name"
            name="name_custom"
            autoComplete="off"
            value={values.name_custom}
            onValue={set('name_custom')}
            hint={`Up to 100 characters. Empty: the name the phone reports (${device.name}).`}
            error={fieldError('name_custom')}
          />
          <CheckboxField label="Send SMS through this device" name="can_send_sms" checked={values.can_send_sms} onChecked={set('can_send_sms')} hint="Off: SMS it has not taken go to other devices; those sent to it by name wait until it is on again." />
          <SelectField label="SIM for sending" name="selected_sim" value={values.selected_sim} onValue={set('selected_sim')} options={simOptions} error={fieldError('selected_sim')} />
          <CheckboxField label="Warn when the battery is low" name="notify_low_battery" checked={values.notify_low_battery} onChecked={set('notify_low_battery')} />
          <CheckboxField label="Forward incoming SMS" name="forward_incoming_sms" checked={values.forward_incoming_sms} onChecked={set('forward_incoming_sms')} />
          <CheckboxField label="Record calls" name="record_calls" checked={values.record_calls} onChecked={set('record_calls')} />
        </fieldset>
        <fieldset>
          <legend>Pace</legend>
          <TextField
            label="SMS in flight at once"
            name="send_window"
            type="number"
            inputMode="numeric"
            value={values.send_window}
            onValue={set('send_window')}
            hint="1 to 50: tasks the phone may hold before it reports them sent."
            error={fieldError('send_window')}
          />
          <div class="form-row">
            <TextField label="Limit per minute" name="per_minute" type="number" inputMode="numeric" value={values.per_minute} onValue={set('per_minute')} hint="1 to 1,000,000; empty: no limit." error={fieldError('limits.per_minute')} />
            <TextField label="Limit per hour" name="per_hour" type="number" inputMode="numeric" value={values.per_hour} onValue={set('per_hour')} hint="1 to 1,000,000; empty: no limit." error={fieldError('limits.per_hour')} />
            <TextField label="Limit per day" name="per_day" type="number" inputMode="numeric" value={values.per_day} onValue={set('per_day')} hint="1 to 1,000,000; empty: no limit." error={fieldError('limits.per_day')} />
          </div>
        </fieldset>
        <fieldset>
          <legend>Spacing and retries</legend>
          <CheckboxField
            label="A random pause between sends"
            name="send_jitter"
            checked={values.jitter}
            onChecked={set('jitter')}
            hint="On top of the limits: each task waits a pause drawn between these bounds after the one before. Other phones are not held back."
          />
          {fieldError('send_jitter') && <p class="field-error">{fieldError('send_jitter')}</p>}
          {values.jitter && (
            <div class="form-row">
              <TextField label="Pause at least (seconds)" name="jitter_min" type="number" inputMode="numeric" value={values.jitter_min} onValue={set('jitter_min')} hint="0 to 3600." error={fieldError('send_jitter.min_seconds')} />
              <TextField label="Pause at most (seconds)" name="jitter_max" type="number" inputMode="numeric" value={values.jitter_max} onValue={set('jitter_max')} hint="0 to 3600, at least the shortest." error={fieldError('send_jitter.max_seconds')} />
            </div>
          )}
          <TextField
            label="Attempts per SMS"
            name="max_send_attempts"
            type="number"
            inputMode="numeric"
            value={values.max_send_attempts}
            onValue={set('max_send_attempts')}
            hint="1 to 5: a send that fails for a reason of the SIM or network (no service, no credit...) is tried again on another SIM or phone. Empty: the account's default (2)."
            error={fieldError('max_send_attempts')}
          />
        </fieldset>
        <fieldset>
          <legend>Quiet hours</legend>
          <CheckboxField label="No sending during quiet hours" name="quiet_hours" checked={values.quiet_hours} onChecked={set('quiet_hours')} hint="Every day, in the time zone below; a window may cross midnight." />
          {fieldError('quiet_hours') && <p class="field-error">{fieldError('quiet_hours')}</p>}
          {values.quiet_hours && (
            <div class="form-row">
              <TextField label="Quiet from" name="quiet_from" type="time" value={values.quiet_from} onValue={set('quiet_from')} error={fieldError('quiet_hours.from')} />
              <TextField label="Quiet until" name="quiet_to" type="time" value={values.quiet_to} onValue={set('quiet_to')} error={fieldError('quiet_hours.to')} />
              <TextField
                label="Time zone"
                name="quiet_timezone"
                autoComplete="off"
                list="device-time-zones"
                value={values.quiet_timezone}
                onValue={set('quiet_timezone')}
                hint="An IANA name, such as Europe/Berlin."
                error={fieldError('quiet_hours.timezone')}
              />
              <TimeZoneList id="device-time-zones" />
            </div>
          )}
        </fieldset>
        <fieldset>
          <legend>Pause after failures</legend>
          <CheckboxField
            label="End the pause now"
            name="paused"
            checked={values.end_pause}
            onChecked={set('end_pause')}
            hint={paused ? 'The gateway paused this device after failed sends in a row; it takes tasks again once saved.' : 'The device is not paused; this applies only to a pause under way.'}
          />
          {device.queue.paused_sims.length > 0 && (
            <ul class="muted" aria-label="Paused SIMs">
              {device.queue.paused_sims.map((sim) => (
                <li key={sim.sim_slot}>
                  SIM {sim.sim_slot + 1} paused until {new Date(sim.paused_until).toLocaleString()}
                  {sim.reason ? `: ${sim.reason}` : ''} (ending the pause ends this too)
                </li>
              ))}
            </ul>
          )}
        </fieldset>
        <button type="submit" class="button button-primary">
          Save settings
        </button>
      </fieldset>
    </form>
  );
}

/** Suggestions for the time zone field, from the browser's own list where it has one. */
function TimeZoneList({ id }: { id: string }) {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return (
    <datalist id={id}>
      {zones.map((zone) => (
        <option key={zone} value={zone} />
      ))}
    </datalist>
  );
}
