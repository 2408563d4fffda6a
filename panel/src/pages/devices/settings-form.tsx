// A device's settings, one labelled field per field PATCH /devices/{id}/settings takes. Viewers
// see the same form disabled, so they can read every setting. The API judges every value and
// its messages appear beside the fields.
import { useState } from 'preact/hooks';
import { ApiError, patch } from '../../api.ts';
import { CheckboxField, NumberField, SelectField, TextField, ToggledFields } from '../../ui/fields.tsx';
import { ErrorNotice, SuccessNotice } from '../../ui/notice.tsx';
import type { DeviceDetail } from '../../api/types.ts';
import { isPaused } from './paused.ts';
import { settingsPatch, settingsValues, simSlotsOf, type SettingsValues } from './settings-values.ts';

/** SIM slots the API accepts (0-2) besides the two choices that name no slot. */
const SIM_SLOTS = [0, 1, 2];

const LIMITS = [
  { key: 'per_minute', label: 'Limit per minute' },
  { key: 'per_hour', label: 'Limit per hour' },
  { key: 'per_day', label: 'Limit per day' },
] as const;

/** The values typed as text, and those ticked. */
type TextKey = { [K in keyof SettingsValues]: SettingsValues[K] extends string ? K : never }[keyof SettingsValues];
type BoxKey = { [K in keyof SettingsValues]: SettingsValues[K] extends boolean ? K : never }[keyof SettingsValues];

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
  /** What ties an input to one value: its name, its text, its setter, and the API's message about `apiField`. */
  const text = (key: TextKey, apiField: string = key) => ({ name: key, value: values[key], onValue: set(key), error: fieldError(apiField) });
  /** The same for a checkbox; its input is named as the API names the setting. */
  const box = (key: BoxKey, name: string = key) => ({ name, checked: values[key], onChecked: set(key) });
  /** The same for one SIM slot's number. */
  const simNumber = (slot: string) => ({
    name: `sim_numbers.${slot}`,
    value: values.sim_numbers[slot] ?? '',
    onValue: (typed: string) => {
      setSaved(false);
      setValues((previous) => ({ ...previous, sim_numbers: { ...previous.sim_numbers, [slot]: typed } }));
    },
    error: fieldError(`sim_numbers.${slot}`),
  });

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
  const pauseHint = isPaused(device)
    ? 'The gateway paused this device after failed sends in a row; it takes tasks again once saved.'
    : 'The device is not paused; this applies only to a pause under way.';

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
          <TextField label="Name" autoComplete="off" {...text('name_custom')} hint={`Up to 100 characters. Empty: the name the phone reports (${device.name}).`} />
          <CheckboxField label="Send SMS through this device" {...box('can_send_sms')} hint="Off: SMS it has not taken go to other devices; those sent to it by name wait until it is on again." />
          <SelectField label="SIM for sending" {...text('selected_sim')} options={simOptions} />
          <CheckboxField label="Warn when the battery is low" {...box('notify_low_battery')} />
          <CheckboxField
            label="Forward incoming SMS"
            {...box('forward_incoming_sms')}
            hint="On: replies and STOP opt-outs the phone receives reach the gateway. Off: the phone keeps them and the gateway shows none; switched on, it forwards them, oldest first."
          />
          {/* A phone that says it uploads no recordings (a modem) is not offered them; one switched on already can still be switched off. */}
          {(device.capabilities?.call_recording !== false || device.record_calls) && <CheckboxField label="Record calls" {...box('record_calls')} />}
        </fieldset>
        <fieldset>
          <legend>Routing</legend>
          <TextField
            label="Device group"
            autoComplete="off"
            spellcheck={false}
            {...text('group')}
            hint={'1-32 lowercase letters, digits, "-" or "_", starting with a letter or digit. A route whose target is "group:<name>" keeps its SMS for the phones of that group. Empty: in no group.'}
          />
        </fieldset>
        {simSlotsOf(device).length > 0 && (
          <fieldset>
            <legend>SIM numbers</legend>
            {simSlotsOf(device).map((slot) => (
              <TextField
                key={slot}
                label={`SIM ${Number(slot) + 1} number`}
                type="tel"
                autoComplete="off"
                {...simNumber(slot)}
                hint={simNumberHint(device, slot)}
              />
            ))}
          </fieldset>
        )}
        <fieldset>
          <legend>Pace</legend>
          <NumberField label="SMS in flight at once" {...text('send_window')} hint="1 to 50: tasks the phone may hold before it reports them sent." />
          <div class="form-row">
            {LIMITS.map(({ key, label }) => (
              <NumberField key={key} label={label} {...text(key, `limits.${key}`)} hint="1 to 1,000,000; empty: no limit." />
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend>Spacing and retries</legend>
          <ToggledFields
            label="A random pause between sends"
            {...box('jitter', 'send_jitter')}
            hint="On top of the limits: each task waits a pause drawn between these bounds after the one before. Other phones are not held back."
            error={fieldError('send_jitter')}
          >
            <NumberField label="Pause at least (seconds)" {...text('jitter_min', 'send_jitter.min_seconds')} hint="0 to 3600." />
            <NumberField label="Pause at most (seconds)" {...text('jitter_max', 'send_jitter.max_seconds')} hint="0 to 3600, at least the shortest." />
          </ToggledFields>
          <NumberField
            label="Attempts per SMS"
            {...text('max_send_attempts')}
            hint="1 to 5: a send that fails for a reason of the SIM or network (no service, no credit...) is tried again on another SIM or phone. Empty: the account's default (2)."
          />
        </fieldset>
        <fieldset>
          <legend>Quiet hours</legend>
          <ToggledFields label="No sending during quiet hours" {...box('quiet_hours')} hint="Every day, in the time zone below; a window may cross midnight." error={fieldError('quiet_hours')}>
            <TextField label="Quiet from" type="time" {...text('quiet_from', 'quiet_hours.from')} />
            <TextField label="Quiet until" type="time" {...text('quiet_to', 'quiet_hours.to')} />
            <TextField label="Time zone" autoComplete="off" list="device-time-zones" {...text('quiet_timezone', 'quiet_hours.timezone')} hint="An IANA name, such as Europe/Berlin." />
            <TimeZoneList id="device-time-zones" />
          </ToggledFields>
        </fieldset>
        <fieldset>
          <legend>Pause after failures</legend>
          <CheckboxField label="End the pause now" {...box('end_pause', 'paused')} hint={pauseHint} />
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

/** What an empty number field means for the SIM, and what the phone says now. */
function simNumberHint(device: DeviceDetail, slot: string): string {
  const card = device.sim_cards.find((sim) => String(sim.index) === slot);
  const reported = card?.phone_number_source === 'device' ? ` (now ${card.phone_number})` : '';
  return `International (+7 916 ...) or national. Yours wins over the number the phone reports; empty: the phone's${reported}, if it reports one.`;
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
