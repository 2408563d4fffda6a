// Hostile requests derived from a route's declared schemas (as the OpenAPI document publishes
// them): for every path parameter, query parameter and body field, values of the wrong type, out
// of range, too long, or text a database cannot hold; and bodies that are not JSON, not an object,
// or of another content type. A route added later is swept without a line written for it.

/** JSON Schema as the OpenAPI document holds it (plain JSON). */
export type Schema = Record<string, any>;

/** A value written into a JSON body as it is: numbers JSON.stringify cannot write (1e309, 2^53 + 1). */
export class RawJson {
  constructor(readonly text: string) {}
}

export interface HostileCase {
  /** What is hostile in it, for the report: "body.phone = []". */
  label: string;
  /** Path with its query string, relative to the server root. */
  url: string;
  /** Sent as it is; undefined: no body. */
  body?: string;
  headers: Record<string, string>;
  /** The input breaks what the route declares, so taking it (a 2xx) would be a silent loss: it must be refused. */
  refused?: boolean;
}

export interface SweptRoute {
  method: string;
  /** The OpenAPI path, such as /api/ext/v1/contacts/{id}. */
  path: string;
  /** Path parameter name -> a real id of the caller's, and one of another account's. */
  ids: Record<string, { own: string; foreign: string }>;
  query?: Schema;
  /** The JSON body's schema; undefined: the route takes none (or only a raw upload). */
  body?: Schema;
  bodyRequired: boolean;
  /** Content types of a raw upload (POST /media). */
  rawTypes?: string[];
  csv: boolean;
  idempotent: boolean;
  /** The body every field is set in; sampled from the schema unless given. */
  base?: unknown;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const PHONE = '+79161234567';
const HUGE = 'x'.repeat(60_000);

/** Values of a JSON body field: each of a wrong type, out of any sane range, or unstorable text. */
export const HOSTILE_VALUES: readonly unknown[] = [
  -1,
  2_147_483_648,
  new RawJson('9007199254740993'),
  1e308,
  new RawJson('1e309'),
  new RawJson('-1e309'),
  '',
  'abc',
  HUGE,
  '\u0000',
  new RawJson('"\\ud800"'),
  '+275760-09-13T00:00:00.000Z',
  '0001-01-01T00:00:00+14:00',
  '9999-12-31T23:59:59.999-12:00',
  [],
  [null, 1, 'x', {}],
  {},
  null,
  true,
];

/** Nested fields (inside an object or the items of an array) get fewer: one of each kind. */
const NESTED_VALUES: readonly unknown[] = [-1, new RawJson('1e309'), 'abc', HUGE, [], null];

/** Query string values, as typed in a URL (already encoded). */
export const HOSTILE_QUERY_VALUES: readonly string[] = [
  '',
  'abc',
  '-1',
  '1.5',
  '1e309',
  '99999999999999999999',
  'x'.repeat(4000),
  '%00',
  '%E0%A4%A',
  '2026-02-30T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  // Day one of year 1 at +14:00 is year 0 in UTC, which PostgreSQL has no such year for.
  '0001-01-01T00:00:00%2B14:00',
  '9999-12-31T23:59:59.999-12:00',
];

/** Path parameter values (already encoded); an id of another account and one of nobody are added per route. */
export const HOSTILE_PATH_VALUES: readonly string[] = ['abc', '-1', '0', '1e309', 'x'.repeat(300), '%00', '%E0%A4%A', '%FF', '%20', 'null'];

const BROKEN_BODIES: readonly [string, string, Record<string, string>][] = [
  ['malformed JSON', '{"a": ', JSON_TYPE],
  ['JSON array', '[]', JSON_TYPE],
  ['JSON array of an object', '[{}]', JSON_TYPE],
  ['JSON string', '"text"', JSON_TYPE],
  ['JSON number', '42', JSON_TYPE],
  ['JSON null', 'null', JSON_TYPE],
  ['empty JSON body', '', JSON_TYPE],
  ['deeply nested JSON', `${'['.repeat(5000)}${']'.repeat(5000)}`, JSON_TYPE],
  ['a key with a NUL character', '{"\\u0000": 1}', JSON_TYPE],
  ['__proto__ as a key', '{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}', JSON_TYPE],
  ['text/plain', '{}', { 'content-type': 'text/plain' }],
  ['form-encoded', 'a=1&b=2', { 'content-type': 'application/x-www-form-urlencoded' }],
  // Not refused: '{}' reads the same in any charset. Here for what the parser does with the name.
  ['JSON in a charset nobody knows', '{}', { 'content-type': 'application/json; charset=klingon' }],
  ['no Content-Type', '{}', {}],
];

/**
 * Headers that authenticate badly or describe the client badly, each replacing the caller's own:
 * a scheme without a key, a key of 8 KB or of Latin-1 bytes, Basic that is not base64, a session
 * cookie that is not one, and a forwarded-for chain of garbage.
 */
export const HOSTILE_HEADERS: readonly Record<string, string>[] = [
  { authorization: 'Bearer' },
  { authorization: `Bearer ${'k'.repeat(8192)}` },
  { authorization: 'Bearer \u00ff\u00fe\u00e9' },
  { authorization: 'Basic %%%not-base64%%%' },
  { authorization: `Basic ${Buffer.from('\u0000:\u0000').toString('base64')}` },
  { cookie: `sms_gateway_session=${'%'.repeat(100)}; sms_gateway_session=x`, 'x-csrf-token': '\u00ff' },
  { 'x-forwarded-for': 'not-an-address, ::::, 999.999.999.999', 'x-real-ip': '%00' },
];

/** Every hostile case for one route, its path filled with the caller's own ids unless a case says otherwise. */
export function hostileCases(route: SweptRoute, ids: IdSource): HostileCase[] {
  const cases: HostileCase[] = [];
  const own = Object.fromEntries(Object.entries(route.ids).map(([name, id]) => [name, id.own]));
  const url = (params: Record<string, string>, query = '') => fillPath(route.path, params) + (query ? `?${query}` : '');
  const base = route.base ?? (route.body ? sample(route.body, '', ids) : undefined);
  const validBody = base === undefined ? undefined : stringify(base);
  const withBody = (label: string, params: Record<string, string>, query = ''): HostileCase => ({
    label,
    url: url(params, query),
    ...(validBody !== undefined ? { body: validBody, headers: { ...JSON_TYPE } } : { headers: {} }),
  });

  for (const name of Object.keys(route.ids)) {
    const values = [...HOSTILE_PATH_VALUES, '00000000-0000-4000-8000-000000000000'];
    for (const value of values) cases.push(withBody(`path ${name} = ${shorten(value)}`, { ...own, [name]: value }));
    // Another account's row is never reached through this one's key (unless both hold the same
    // value, such as a phone number).
    const { foreign } = route.ids[name]!;
    if (foreign !== own[name]) cases.push({ ...withBody(`path ${name} = another account's`, { ...own, [name]: foreign }), refused: true });
  }

  for (const [name, schema] of Object.entries<Schema>(route.query?.properties ?? {})) {
    const good = encodeURIComponent(String(sample(schema, name, ids)));
    for (const value of HOSTILE_QUERY_VALUES) {
      cases.push({ ...withBody(`query ${name}=${shorten(value)}`, own, `${name}=${value}`), ...(outsideNumber(schema, value) ? { refused: true } : {}) });
    }
    cases.push(withBody(`query ${name} repeated`, own, `${name}=${good}&${name}=${good}`));
    cases.push(withBody(`query ${name}[] as an array`, own, `${name}[]=${good}&${name}[x]=1`));
  }
  if (route.method === 'get' || route.query) {
    cases.push(withBody('query with an unknown parameter', own, 'unknown_parameter=1'));
    cases.push(withBody('query limit=-1&cursor=garbage', own, 'limit=-1&cursor=%%%garbage'));
  }

  if (route.body) {
    for (const [label, body, headers] of BROKEN_BODIES) {
      // An empty body is "no body", which a route whose body is optional takes.
      cases.push({ label: `body: ${label}`, url: url(own), body, headers, refused: (body !== '' || route.bodyRequired) && !headers['content-type']?.includes('charset') });
    }
    cases.push({ label: 'no body', url: url(own), headers: {}, refused: route.bodyRequired });
    const object = isObject(base) ? base : {};
    // Not hostile: how deep the other cases reach (a base the route refuses stops them at validation).
    cases.push({ label: 'the base body', url: url(own), body: stringify(base), headers: { ...JSON_TYPE } });
    cases.push({
      label: 'body with an unknown field',
      url: url(own),
      body: stringify({ ...object, unknown_field: 1 }),
      headers: { ...JSON_TYPE },
      refused: route.body.additionalProperties === false,
    });
    for (const path of fieldsOf(route.body)) {
      const values = path.length === 1 ? HOSTILE_VALUES : NESTED_VALUES;
      for (const value of values) {
        cases.push({
          label: `body.${path.join('.')} = ${describe(value)}`,
          url: url(own),
          body: stringify(setAt(object, route.body, path, value, ids)),
          headers: { ...JSON_TYPE },
        });
      }
    }
    if (route.csv) {
      for (const [label, body] of [
        ['CSV without a header row', ''],
        ['CSV with only a header', 'phone'],
        ['CSV with an unclosed quote', 'phone,message\n"+79161234567,"x'],
        ['CSV with a NUL character', `phone,message\n${PHONE},a\u0000b`],
        ['CSV with 5000 columns', `${Array.from({ length: 5000 }, (_, i) => `c${i}`).join(',')}\n1`],
        ['CSV with a huge cell', `phone,message,name\n${PHONE},x,${HUGE}`],
      ] as const) {
        cases.push({ label: `body: ${label}`, url: url(own), body, headers: { 'content-type': 'text/csv' } });
      }
    }
  }

  if (route.rawTypes) {
    cases.push({ label: 'upload: no body', url: url(own), headers: { 'content-type': route.rawTypes[0]! } });
    cases.push({ label: 'upload: garbage bytes', url: url(own), body: 'not a picture at all', headers: { 'content-type': route.rawTypes[0]! } });
    cases.push({ label: 'upload: type not taken', url: url(own), body: '<html></html>', headers: { 'content-type': 'text/html' } });
    cases.push({ label: 'upload: no Content-Type', url: url(own), body: 'abc', headers: {} });
  }

  if (route.idempotent) {
    for (const key of ['', ' ', 'x'.repeat(256), 'é', 'a\tb']) {
      const plain = withBody(`Idempotency-Key ${shorten(JSON.stringify(key))}`, own);
      cases.push({ ...plain, headers: { ...plain.headers, 'idempotency-key': key } });
    }
  }
  return cases;
}

/** Real ids, by the name of the field or parameter that holds one (device_id, group_id...). */
export type IdSource = (name: string) => string;

/** A value the schema accepts, as far as a guess from the schema goes: the base each hostile field is set in. */
export function sample(schema: Schema, name: string, ids: IdSource): unknown {
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  const branches: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (branches) return sample(branches.find((branch) => branch.type !== 'null') ?? branches[0]!, name, ids);
  const type = Array.isArray(schema.type) ? schema.type.find((each: string) => each !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(((schema.required ?? []) as string[]).map((key) => [key, sample(schema.properties?.[key] ?? {}, key, ids)]));
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items ?? {}, name, ids));
    case 'string':
      return sampleString(schema, name, ids);
    case 'integer':
    case 'number':
      return Math.min(schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1), schema.maximum ?? Infinity);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return 'x';
  }
}

function sampleString(schema: Schema, name: string, ids: IdSource): string {
  switch (schema.format) {
    case 'uuid':
      return ids(name);
    case 'date-time':
      return new Date(Date.now() + 3_600_000).toISOString();
    case 'uri':
      return 'https://example.com/hook';
    case 'email':
      return 'sweep@example.com';
  }
  const candidates = [PHONE, ids(name), '0123456789abcdef01234567', 'sweep', 'a', '12:00', '1', 'UTC', 'sweep@example.com', 'https://example.com/hook', 'a'.repeat(schema.minLength ?? 1)];
  if (/phone|number|^to$|^from$/i.test(name)) candidates.unshift(PHONE);
  if (/email/i.test(name)) candidates.unshift('sweep@example.com');
  if (/url/i.test(name)) candidates.unshift('https://example.com/hook');
  const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
  return (
    candidates.find((text) => (!pattern || pattern.test(text)) && text.length >= (schema.minLength ?? 0) && text.length <= (schema.maxLength ?? Infinity)) ??
    'x'.repeat(Math.max(1, schema.minLength ?? 1))
  );
}

/** The fields a body's schema names: each top-level one, and one level into objects and array items. */
function fieldsOf(schema: Schema): string[][] {
  const fields: string[][] = [];
  for (const [key, field] of Object.entries<Schema>(objectBranch(schema)?.properties ?? {})) {
    fields.push([key]);
    const inner = objectBranch(field) ?? objectBranch(arrayItems(field) ?? {});
    const through = objectBranch(field) ? [key] : [key, '0'];
    for (const innerKey of Object.keys(inner?.properties ?? {})) fields.push([...through, innerKey]);
  }
  return fields;
}

function objectBranch(schema: Schema): Schema | undefined {
  if (schema.type === 'object' && schema.properties) return schema;
  return ((schema.anyOf ?? schema.oneOf ?? []) as Schema[]).find((branch) => branch.type === 'object' && branch.properties);
}

function arrayItems(schema: Schema): Schema | undefined {
  if (schema.type === 'array') return schema.items;
  return ((schema.anyOf ?? []) as Schema[]).find((branch) => branch.type === 'array')?.items;
}

/** The base body with the field at `path` set to `value` (the objects on the way made from their schemas). */
function setAt(base: Record<string, unknown>, schema: Schema, path: string[], value: unknown, ids: IdSource): Record<string, unknown> {
  const root = structuredClone(base);
  let at: any = root;
  let atSchema: Schema | undefined = schema;
  for (const [index, key] of path.slice(0, -1).entries()) {
    const next: Schema | undefined = key === '0' ? arrayItems(atSchema ?? {}) : objectBranch(atSchema ?? {})?.properties?.[key];
    const nextIsArray = path[index + 1] === '0';
    if (nextIsArray) {
      if (!Array.isArray(at[key])) at[key] = [];
      if (at[key].length === 0) at[key].push(sample(arrayItems(next ?? {}) ?? {}, key, ids));
    } else if (!isObject(at[key])) {
      const made = sample(next ?? {}, key, ids);
      at[key] = isObject(made) ? made : {};
    }
    at = at[key];
    atSchema = next;
    if (!isObject(at) && !Array.isArray(at)) return root;
  }
  at[path[path.length - 1]!] = value;
  return root;
}

/** JSON, with RawJson values written as they are. */
export function stringify(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, inner) => {
    if (inner instanceof RawJson) {
      raws.push(inner.text);
      return `\u0001raw${raws.length - 1}\u0001`;
    }
    return inner;
  });
  return text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_match, index: string) => raws[Number(index)]!);
}

export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => params[name] ?? 'missing');
}

/** The query value is not a number the parameter's integer or number schema takes. */
function outsideNumber(schema: Schema, text: string): boolean {
  if (schema.type !== 'integer' && schema.type !== 'number') return false;
  let value: number;
  try {
    value = Number(decodeURIComponent(text));
  } catch {
    return true;
  }
  if (text === '' || !Number.isFinite(value)) return true;
  if (schema.type === 'integer' && !Number.isInteger(value)) return true;
  return value < (schema.minimum ?? -Infinity) || value > (schema.maximum ?? Infinity);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  return shorten(JSON.stringify(value));
}

function shorten(text: string): string {
  return text.length > 24 ? `${text.slice(0, 12)}...(${text.length} chars)` : text;
}
