// An upstream's settings as stored, from what a client posted: the kind's required fields
// present, its defaults filled in, and no field of the other kind. Every problem names its field.
import { invalidField } from '../../common/errors.ts';
import type { SmppUpstreamSettings, TwilioUpstreamSettings, UpstreamKind } from './types.ts';

const SMPP_DEFAULTS = { tls: false, system_type: '', bind_mode: 'transceiver', source_addr: '', throughput_per_second: 50, window_size: 10, enquire_link_seconds: 30 } as const;
const TWILIO_DEFAULTS = { from: null, messaging_service_sid: null, max_concurrent: 10, throughput_per_second: 50 } as const;

export const SMPP_SETTING_FIELDS = ['host', 'port', 'tls', 'system_id', 'system_type', 'bind_mode', 'source_addr', 'throughput_per_second', 'window_size', 'enquire_link_seconds'] as const;
export const TWILIO_SETTING_FIELDS = ['base_url', 'account_sid', 'from', 'messaging_service_sid', 'max_concurrent', 'throughput_per_second'] as const;
const SECRET_FIELD: Record<UpstreamKind, string> = { smpp: 'password', twilio: 'auth_token' };
/** The secret of every kind: what a body may carry that must stay out of logs and process lists. */
export const SECRET_FIELDS: readonly string[] = Object.values(SECRET_FIELD);
const REQUIRED: Record<UpstreamKind, readonly string[]> = { smpp: ['host', 'port', 'system_id'], twilio: ['base_url', 'account_sid'] };

type Posted = Record<string, unknown>;

export function secretField(kind: UpstreamKind): string {
  return SECRET_FIELD[kind];
}

/**
 * The settings of a `kind` upstream from `posted` laid over `current` (none when it is made):
 * 400 naming the first field of the other kind, a required field missing, or a Twilio upstream
 * with neither sender.
 */
export function upstreamSettings(kind: UpstreamKind, posted: Posted, current?: SmppUpstreamSettings | TwilioUpstreamSettings): SmppUpstreamSettings | TwilioUpstreamSettings {
  const own: readonly string[] = kind === 'smpp' ? SMPP_SETTING_FIELDS : TWILIO_SETTING_FIELDS;
  const other: readonly string[] = kind === 'smpp' ? [...TWILIO_SETTING_FIELDS, 'auth_token'] : [...SMPP_SETTING_FIELDS, 'password'];
  const foreign = other.find((field) => posted[field] !== undefined && !own.includes(field));
  if (foreign) throw invalidField(foreign, `${foreign} is not a setting of a ${kind} upstream`);
  const merged: Posted = { ...(kind === 'smpp' ? SMPP_DEFAULTS : TWILIO_DEFAULTS), ...(current ?? {}) };
  for (const field of own) if (posted[field] !== undefined) merged[field] = posted[field];
  for (const field of REQUIRED[kind]) if (merged[field] === undefined) throw invalidField(field, `${field} is required for a ${kind} upstream`);
  if (kind === 'twilio') {
    if (merged.from === null && merged.messaging_service_sid === null) throw invalidField('from', 'a twilio upstream needs from or messaging_service_sid');
    const url = new URL(String(merged.base_url));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidField('base_url', 'base_url must be an http or https URL');
    if (url.username || url.password) throw invalidField('base_url', 'base_url may not carry credentials: give account_sid and auth_token');
  }
  return Object.fromEntries(own.map((field) => [field, merged[field]])) as unknown as SmppUpstreamSettings | TwilioUpstreamSettings;
}

/** The secret posted for a new upstream: required. */
export function requiredSecret(kind: UpstreamKind, posted: Posted): string {
  const secret = posted[SECRET_FIELD[kind]];
  if (typeof secret !== 'string' || secret.length === 0) throw invalidField(SECRET_FIELD[kind], `${SECRET_FIELD[kind]} is required for a ${kind} upstream`);
  return secret;
}
