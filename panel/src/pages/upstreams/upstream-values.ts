// An upstream as its form holds it (text as typed, one set of fields per kind) and the bodies
// POST and PATCH /upstreams take from it: only the fields of its kind, a new upstream without the
// fields left empty (the gateway's defaults apply), a change with only the fields that changed.
// The secret is never read back: empty on an edit keeps the one the gateway holds.
import type { AsTyped, NewUpstream, Upstream, UpstreamChange, UpstreamKind } from './types.ts';

export interface UpstreamValues {
  name: string;
  kind: UpstreamKind;
  enabled: boolean;
  price_per_segment: string;
  monthly_budget: string;
  /** One "prefix price" a line: "+44 0.035". */
  prefix_prices: string;
  throughput_per_second: string;
  host: string;
  port: string;
  tls: boolean;
  system_id: string;
  system_type: string;
  bind_mode: 'transceiver' | 'transmitter_receiver';
  source_addr: string;
  window_size: string;
  enquire_link_seconds: string;
  password: string;
  base_url: string;
  account_sid: string;
  from: string;
  messaging_service_sid: string;
  max_concurrent: string;
  auth_token: string;
}

type Field = keyof UpstreamValues;

const COMMON_FIELDS: Field[] = ['name', 'enabled', 'price_per_segment', 'monthly_budget', 'prefix_prices', 'throughput_per_second'];
const KIND_FIELDS: Record<UpstreamKind, Field[]> = {
  smpp: ['host', 'port', 'tls', 'system_id', 'system_type', 'bind_mode', 'source_addr', 'window_size', 'enquire_link_seconds'],
  twilio: ['base_url', 'account_sid', 'from', 'messaging_service_sid', 'max_concurrent'],
};
export const SECRET_FIELD = { smpp: 'password', twilio: 'auth_token' } as const satisfies Record<UpstreamKind, Field>;
/** Money and senders: empty is "none" (null), not an empty text. */
const NULLABLE: Field[] = ['price_per_segment', 'monthly_budget', 'from', 'messaging_service_sid'];
const NUMERIC: Field[] = ['price_per_segment', 'monthly_budget', 'throughput_per_second', 'port', 'window_size', 'enquire_link_seconds', 'max_concurrent'];

export function emptyUpstream(kind: UpstreamKind = 'smpp'): UpstreamValues {
  return {
    name: '',
    kind,
    enabled: true,
    price_per_segment: '',
    monthly_budget: '',
    prefix_prices: '',
    throughput_per_second: '',
    host: '',
    port: '',
    tls: false,
    system_id: '',
    system_type: '',
    bind_mode: 'transceiver',
    source_addr: '',
    window_size: '',
    enquire_link_seconds: '',
    password: '',
    base_url: '',
    account_sid: '',
    from: '',
    messaging_service_sid: '',
    max_concurrent: '',
    auth_token: '',
  };
}

/** The form's values of an upstream as the API answers it; its secret is not among them. */
export function upstreamValues(upstream: Upstream): UpstreamValues {
  const text = (value: string | number | null | undefined) => (value === null || value === undefined ? '' : String(value));
  return {
    ...emptyUpstream(upstream.kind),
    name: upstream.name,
    enabled: upstream.enabled,
    price_per_segment: text(upstream.price_per_segment),
    monthly_budget: text(upstream.monthly_budget),
    prefix_prices: upstream.prefix_prices.map(({ prefix, price }) => `${prefix} ${price}`).join('\n'),
    throughput_per_second: text(upstream.throughput_per_second),
    host: text(upstream.host),
    port: text(upstream.port),
    tls: upstream.tls ?? false,
    system_id: text(upstream.system_id),
    system_type: text(upstream.system_type),
    bind_mode: upstream.bind_mode ?? 'transceiver',
    source_addr: text(upstream.source_addr),
    window_size: text(upstream.window_size),
    enquire_link_seconds: text(upstream.enquire_link_seconds),
    base_url: text(upstream.base_url),
    account_sid: text(upstream.account_sid),
    from: text(upstream.from),
    messaging_service_sid: text(upstream.messaging_service_sid),
    max_concurrent: text(upstream.max_concurrent),
  };
}

export function createBody(values: UpstreamValues): AsTyped<NewUpstream> {
  const body: Record<string, unknown> = { name: values.name, kind: values.kind };
  for (const field of fieldsOf(values.kind)) {
    if (field === 'name') continue;
    const value = values[field];
    if (value === '') continue;
    body[field] = apiValue(field, value);
  }
  return body as AsTyped<NewUpstream>;
}

/** What changed since `before` (the upstream as loaded); empty when nothing did. */
export function changeBody(before: UpstreamValues, after: UpstreamValues): AsTyped<UpstreamChange> {
  const body: Record<string, unknown> = {};
  for (const field of fieldsOf(after.kind)) {
    if (field === SECRET_FIELD[after.kind] ? after[field] === '' : after[field] === before[field]) continue;
    body[field] = apiValue(field, after[field]);
  }
  return body as AsTyped<UpstreamChange>;
}

function fieldsOf(kind: UpstreamKind): Field[] {
  return [...COMMON_FIELDS, ...KIND_FIELDS[kind], SECRET_FIELD[kind]];
}

function apiValue(field: Field, value: string | boolean): unknown {
  if (typeof value === 'boolean') return value;
  if (field === 'prefix_prices') return prefixPrices(value);
  if (value === '' && NULLABLE.includes(field)) return null;
  if (NUMERIC.includes(field)) return numberOrText(value);
  return value;
}

/** "+44 0.035" a line (or "+44: 0.035", "+44=0.035"); a line that does not read is sent as typed for the gateway to judge. */
export function prefixPrices(text: string): AsTyped<NonNullable<NewUpstream['prefix_prices']>[number]>[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [prefix = '', price = ''] = line.split(/[\s:=,;]+/, 2);
      return { prefix, price: numberOrText(price) };
    });
}

function numberOrText(value: string): number | string {
  const trimmed = value.trim();
  return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : value;
}
