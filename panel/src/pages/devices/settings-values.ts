// The settings form's values (text as the inputs hold it) and the PATCH /devices/{id}/settings
// body made from them. Only changed fields are sent: the API leaves the others alone, and a name
// sent back unchanged would pin the system name as a custom one. The API checks every value;
// the panel only turns text into the JSON types the API expects and lets it judge the rest.
import type { Device } from '../../api/types.ts';

export interface SettingsValues {
  name_custom: string;
  can_send_sms: boolean;
  selected_sim: string;
  notify_low_battery: boolean;
  forward_incoming_sms: boolean;
  record_calls: boolean;
  send_window: string;
  per_minute: string;
  per_hour: string;
  per_day: string;
  quiet_hours: boolean;
  quiet_from: string;
  quiet_to: string;
  quiet_timezone: string;
  jitter: boolean;
  jitter_min: string;
  jitter_max: string;
  max_send_attempts: string;
  end_pause: boolean;
  /** The owner's number per SIM slot ("0", "1"...), as typed; empty: none of the owner's. */
  sim_numbers: Record<string, string>;
  /** The device group routes may target as "group:<name>"; empty: in no group. */
  group: string;
}

export type SettingsPatch = Record<string, unknown>;

/** The browser's own time zone: the likeliest one for new quiet hours. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function settingsValues(device: Device): SettingsValues {
  const quiet = device.quiet_hours;
  return {
    name_custom: device.name_custom,
    can_send_sms: device.can_send_sms,
    selected_sim: String(device.selected_sim),
    notify_low_battery: device.notify_low_battery,
    forward_incoming_sms: device.forward_incoming_sms,
    record_calls: device.record_calls,
    send_window: String(device.send_window),
    per_minute: limitText(device.limits.per_minute),
    per_hour: limitText(device.limits.per_hour),
    per_day: limitText(device.limits.per_day),
    quiet_hours: quiet !== null,
    quiet_from: quiet?.from ?? '22:00',
    quiet_to: quiet?.to ?? '07:00',
    quiet_timezone: quiet?.timezone ?? browserTimeZone(),
    jitter: device.send_jitter !== null,
    jitter_min: String(device.send_jitter?.min_seconds ?? 5),
    jitter_max: String(device.send_jitter?.max_seconds ?? 30),
    max_send_attempts: device.max_send_attempts === null ? '' : String(device.max_send_attempts),
    end_pause: false,
    sim_numbers: Object.fromEntries(simSlotsOf(device).map((slot) => [slot, ownerNumber(device, slot)])),
    group: device.group ?? '',
  };
}

/** The SIM slots a number may be typed for: those the phone reported, and any the owner gave a number before. */
export function simSlotsOf(device: Device): string[] {
  const slots = new Set([...device.sim_cards.map((sim) => String(sim.index)), ...Object.keys(device.sim_numbers)]);
  return [...slots].sort((a, b) => Number(a) - Number(b));
}

function ownerNumber(device: Device, slot: string): string {
  return (device.sim_numbers as Record<string, string | undefined>)[slot] ?? '';
}

/** The fields that differ from `initial`, as the API takes them; empty when nothing changed. */
export function settingsPatch(initial: SettingsValues, values: SettingsValues): SettingsPatch {
  const patch: SettingsPatch = {};
  const changed = (key: keyof SettingsValues) => initial[key] !== values[key];
  if (changed('name_custom')) patch.name_custom = values.name_custom.trim();
  for (const key of ['can_send_sms', 'notify_low_battery', 'forward_incoming_sms', 'record_calls'] as const) {
    if (changed(key)) patch[key] = values[key];
  }
  if (changed('selected_sim')) patch.selected_sim = Number(values.selected_sim);
  if (changed('send_window')) patch.send_window = numberOrText(values.send_window);
  const limits: Record<string, unknown> = {};
  for (const key of ['per_minute', 'per_hour', 'per_day'] as const) {
    // An empty limit field means no limit (null), which the API accepts.
    if (changed(key)) limits[key] = values[key].trim() === '' ? null : numberOrText(values[key]);
  }
  if (Object.keys(limits).length > 0) patch.limits = limits;
  const quietChanged = (['quiet_hours', 'quiet_from', 'quiet_to', 'quiet_timezone'] as const).some(changed);
  if (quietChanged && (values.quiet_hours || initial.quiet_hours)) {
    patch.quiet_hours = values.quiet_hours ? { from: values.quiet_from, to: values.quiet_to, timezone: values.quiet_timezone.trim() } : null;
  }
  const jitterChanged = (['jitter', 'jitter_min', 'jitter_max'] as const).some(changed);
  if (jitterChanged && (values.jitter || initial.jitter)) {
    patch.send_jitter = values.jitter ? { min_seconds: numberOrText(values.jitter_min), max_seconds: numberOrText(values.jitter_max) } : null;
  }
  // Empty: the account's default.
  if (changed('max_send_attempts')) patch.max_send_attempts = values.max_send_attempts.trim() === '' ? null : numberOrText(values.max_send_attempts);
  if (values.end_pause) patch.paused = false;
  const simNumbers: Record<string, string | null> = {};
  for (const [slot, typed] of Object.entries(values.sim_numbers)) {
    // Emptied: the owner's number is cleared (null), and the phone's shows again.
    if (typed.trim() !== (initial.sim_numbers[slot] ?? '').trim()) simNumbers[slot] = typed.trim() === '' ? null : typed.trim();
  }
  if (Object.keys(simNumbers).length > 0) patch.sim_numbers = simNumbers;
  // Emptied: the device leaves its group (null). A name is sent as typed, for the API to judge.
  if (values.group.trim() !== initial.group.trim()) patch.group = values.group.trim() === '' ? null : values.group.trim();
  return patch;
}

function limitText(limit: number | null): string {
  return limit === null ? '' : String(limit);
}

/** A number when the text is one; otherwise the text itself, for the API to name what is wrong. */
function numberOrText(text: string): number | string {
  const trimmed = text.trim();
  const value = Number(trimmed);
  return trimmed !== '' && Number.isFinite(value) ? value : trimmed;
}
