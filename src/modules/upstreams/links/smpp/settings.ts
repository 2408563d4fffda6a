// What an SMPP upstream is told: where the provider's SMSC listens, how to bind to it, how
// addresses are typed, and how hard it may be pushed. The check is a pure function so that the
// API's validation can answer an owner field by field before anything connects.

export type SmppBindMode = 'transceiver' | 'transmitter_receiver';

export interface SmppLinkSettings {
  host: string;
  port: number;
  /** SMPP over TLS, the provider's certificate checked against the system's CAs or `ca`. */
  tls: boolean;
  /** A PEM certificate (or several) to trust for this SMSC, besides the system's. */
  ca?: string;
  systemId: string;
  password: string;
  systemType?: string;
  /** One bind that sends and receives, or two: a transmitter and a receiver. */
  bindMode?: SmppBindMode;
  /** The sender when a submission names none. */
  sourceAddr?: string;
  /** When not given, worked out from the sender: 5/0 for an alphanumeric one, 1/1 for a number. */
  sourceTon?: number;
  sourceNpi?: number;
  destTon?: number;
  destNpi?: number;
  /** submit_sm a second. */
  throughputPerSecond?: number;
  /** submit_sm awaiting their submit_sm_resp at once. */
  windowSize?: number;
  enquireLinkSeconds?: number;
  /** How long a request waits for its response before it counts as lost. */
  responseTimeoutMs?: number;
}

export interface ResolvedSmppLinkSettings extends Required<Omit<SmppLinkSettings, 'ca' | 'sourceTon' | 'sourceNpi'>> {
  ca?: string;
  sourceTon?: number;
  sourceNpi?: number;
}

export const SMPP_LINK_DEFAULTS = {
  systemType: '',
  bindMode: 'transceiver',
  sourceAddr: '',
  destTon: 1,
  destNpi: 1,
  throughputPerSecond: 50,
  windowSize: 10,
  enquireLinkSeconds: 30,
  responseTimeoutMs: 10_000,
} as const satisfies Partial<SmppLinkSettings>;

export function withDefaults(settings: SmppLinkSettings): ResolvedSmppLinkSettings {
  const defined = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
  return { ...SMPP_LINK_DEFAULTS, ...defined } as ResolvedSmppLinkSettings;
}

// Field lengths are SMPP 3.4's C-Octet String maximums less the terminating NUL.
const SYSTEM_ID_MAX = 15;
const PASSWORD_MAX = 8;
const SYSTEM_TYPE_MAX = 12;
const ADDRESS_MAX = 20;
const ALPHANUMERIC_SENDER_MAX = 11;
/** The type-of-number values SMPP 3.4 defines (5.2.5). */
const TONS = [0, 1, 2, 3, 4, 5, 6];
/** The numbering-plan values SMPP 3.4 defines (5.2.6). */
const NPIS = [0, 1, 3, 4, 6, 8, 9, 10, 14, 18];
const BIND_MODES: readonly SmppBindMode[] = ['transceiver', 'transmitter_receiver'];

const KNOWN_FIELDS = new Set([
  'host', 'port', 'tls', 'ca', 'systemId', 'password', 'systemType', 'bindMode', 'sourceAddr', 'sourceTon', 'sourceNpi',
  'destTon', 'destNpi', 'throughputPerSecond', 'windowSize', 'enquireLinkSeconds', 'responseTimeoutMs',
]);

/**
 * What is wrong with `input` as SMPP link settings, one line per problem, each naming its field;
 * none: they will do. `fieldName`: how the caller's own API spells a field (system_id for
 * systemId), so that the owner reads the names they posted.
 */
export function checkSmppLinkSettings(input: unknown, fieldName: (field: string) => string = (field) => field): string[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return ['settings: must be an object'];
  const given = input as Record<string, unknown>;
  const problems: string[] = [];
  const problem = (field: string, text: string) => problems.push(`${fieldName(field)}: ${text}`);

  for (const field of Object.keys(given)) if (!KNOWN_FIELDS.has(field)) problem(field, 'is not a setting of an SMPP link');

  if (typeof given.host !== 'string' || given.host.trim() === '') problem('host', 'is required: the SMSC\'s host name or address');
  else if (/\s|\/|:\/\//.test(given.host.trim()) || given.host.length > 253) problem('host', 'must be a host name or an IP address, without a scheme or a path');
  checkInteger(given.port, 'port', 1, 65_535, true, problem);
  if (typeof given.tls !== 'boolean') problem('tls', 'is required: true or false');
  if (given.ca !== undefined) {
    if (typeof given.ca !== 'string' || !/-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(given.ca)) problem('ca', 'must be a PEM certificate (-----BEGIN CERTIFICATE----- ...)');
    else if (given.tls !== true) problem('ca', 'is only used with tls: true');
  }
  checkText(given.systemId, 'systemId', 1, SYSTEM_ID_MAX, true, problem);
  checkText(given.password, 'password', 0, PASSWORD_MAX, true, problem);
  checkText(given.systemType, 'systemType', 0, SYSTEM_TYPE_MAX, false, problem);
  if (given.bindMode !== undefined && !BIND_MODES.includes(given.bindMode as SmppBindMode)) problem('bindMode', `must be one of ${BIND_MODES.join(', ')}`);
  if (given.sourceAddr !== undefined) {
    if (typeof given.sourceAddr !== 'string') problem('sourceAddr', 'must be text');
    else if (!/^[\x20-\x7e]*$/.test(given.sourceAddr)) problem('sourceAddr', 'must be printable ASCII');
    else if (isAlphanumericSender(given.sourceAddr) && given.sourceAddr.length > ALPHANUMERIC_SENDER_MAX) problem('sourceAddr', `an alphanumeric sender has at most ${ALPHANUMERIC_SENDER_MAX} characters`);
    else if (given.sourceAddr.replace(/^\+/, '').length > ADDRESS_MAX) problem('sourceAddr', `has at most ${ADDRESS_MAX} digits`);
  }
  for (const field of ['sourceTon', 'destTon']) if (given[field] !== undefined && !TONS.includes(given[field] as number)) problem(field, `must be a type of number SMPP defines (${TONS.join(', ')})`);
  for (const field of ['sourceNpi', 'destNpi']) if (given[field] !== undefined && !NPIS.includes(given[field] as number)) problem(field, `must be a numbering plan SMPP defines (${NPIS.join(', ')})`);
  if ((given.sourceTon === undefined) !== (given.sourceNpi === undefined)) problem(given.sourceTon === undefined ? 'sourceTon' : 'sourceNpi', 'sourceTon and sourceNpi are given together, or neither (then worked out from each sender)');
  checkInteger(given.throughputPerSecond, 'throughputPerSecond', 1, 10_000, false, problem);
  checkInteger(given.windowSize, 'windowSize', 1, 1_000, false, problem);
  checkInteger(given.enquireLinkSeconds, 'enquireLinkSeconds', 1, 3_600, false, problem);
  checkInteger(given.responseTimeoutMs, 'responseTimeoutMs', 100, 120_000, false, problem);
  return problems;
}

/** A sender with a letter in it: SMSCs take it as TON 5 (alphanumeric), NPI 0. */
export function isAlphanumericSender(sender: string): boolean {
  return /[^+\d]/.test(sender);
}

function checkInteger(value: unknown, field: string, min: number, max: number, required: boolean, problem: (field: string, text: string) => void): void {
  if (value === undefined) {
    if (required) problem(field, `is required: a whole number from ${min} to ${max}`);
    return;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) problem(field, `must be a whole number from ${min} to ${max}`);
}

function checkText(value: unknown, field: string, min: number, max: number, required: boolean, problem: (field: string, text: string) => void): void {
  if (value === undefined) {
    if (required) problem(field, 'is required');
    return;
  }
  if (typeof value !== 'string') return problem(field, 'must be text');
  // SMPP's C-Octet Strings are ASCII, ended by a NUL: a NUL inside would cut the field short.
  if (!/^[\x20-\x7e]*$/.test(value)) return problem(field, 'must be printable ASCII');
  if (value.length < min || value.length > max) problem(field, min > 0 ? `must have ${min} to ${max} characters` : `has at most ${max} characters`);
}
