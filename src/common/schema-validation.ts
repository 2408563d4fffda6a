// JSON Schema validation, shared by the HTTP API (every request part) and the broker (what
// devices publish). The schemas are TypeBox objects, so the same definition types the handler,
// validates the input and is published in the OpenAPI document; a refusal is told in the same
// words whichever way the input came.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import type { ErrorDetail } from './errors.ts';
import { exceedsCharacters } from './characters.ts';
import { UUID_PATTERN } from './object-id.ts';
import { checkingTextNumbers, type TextProblem } from './text-numbers.ts';

// ajv-formats is CommonJS with a default export that TypeScript sees one level down.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export type RequestPart = 'body' | 'query' | 'path';

/**
 * `x-maxCharacters`: a length limit counted the way a person counts characters (grapheme
 * clusters), so an emoji with a skin tone is one character. JSON Schema's maxLength counts code
 * points, which would count that emoji as two ("counted in characters not bytes").
 */
export const MAX_CHARACTERS = 'x-maxCharacters';

function createAjv(coerce: boolean): Ajv {
  // verbose: each error carries the schema it failed, so a union's error can say in words what
  // the union accepts (see explain).
  const ajv = new Ajv({ allErrors: true, verbose: true, coerceTypes: coerce, useDefaults: true, strict: true });
  addFormats(ajv, ['uri']);
  // Stricter than ajv-formats: its uuid also takes "urn:uuid:..." and its date-time takes leap
  // seconds (":60"); neither is something Postgres or Date can hold.
  ajv.addFormat('uuid', UUID_PATTERN);
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  ajv.addKeyword({
    keyword: MAX_CHARACTERS,
    type: 'string',
    schemaType: 'number',
    errors: true,
    validate: function check(limit: number, data: string) {
      if (!exceedsCharacters(data, limit)) return true;
      (check as unknown as { errors: Partial<ErrorObject>[] }).errors = [
        { keyword: MAX_CHARACTERS, message: `must not exceed ${limit} characters`, params: { limit } },
      ];
      return false;
    },
  });
  return ajv;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/i;

/**
 * RFC 3339 date-time that names a real calendar day (no February 31st, no hour 24), at an instant
 * of the years 1 to 9999 in UTC as well: year 1 at +14:00 is still year 0 in UTC, and 9999 at
 * -12:00 already year 10000, which the database cannot take (the embedded one fails on both).
 */
function isDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (!(year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth)) return false;
  const utcYear = new Date(value).getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999;
}

// Bodies are JSON and must have the declared types; query strings and path parameters are text
// and are coerced ("10" -> 10) before their schema is applied.
const bodyAjv = createAjv(false);
const textAjv = createAjv(true);

export function compile(schema: TSchema, part: RequestPart): ValidateFunction {
  return part === 'body' ? bodyAjv.compile(schema) : checkingTextNumbers(textAjv.compile(schema), schema);
}

/**
 * Ajv's own words are its internals: a union (TypeBox's Union, JSON Schema anyOf) fails with one
 * "must be equal to constant" per branch and then "must match a schema in anyOf". Each union is
 * told as one detail instead: the branch the input has the shape of explains what is wrong
 * inside it (to_sim 5: "must be at most 2"); input of no branch's shape gets the list of what is
 * accepted ("must be one of: pending, sent, ..."). One detail per field and message.
 */
export function explain(errors: ErrorObject[], part: RequestPart): ErrorDetail[] {
  const unions = errors.filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf');
  const insideUnion = (error: ErrorObject) => unions.some((union) => error.schemaPath.startsWith(`${union.schemaPath}/`));
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    if (insideUnion(error)) continue;
    if (unions.includes(error)) details.push(...explainUnion(error, errors, part));
    else details.push(describe(error, part));
  }
  const seen = new Set<string>();
  return details.filter((detail) => {
    const key = `${detail.field}\u0000${detail.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function explainUnion(union: ErrorObject, errors: ErrorObject[], part: RequestPart): ErrorDetail[] {
  const prefix = `${union.schemaPath}/`;
  const branches = Array.isArray(union.schema) ? (union.schema as Schema[]) : [];
  const errorsOf = (index: number) => errors.filter((error) => error.schemaPath.startsWith(`${prefix}${index}/`));
  // A branch whose own type or constant already fails is of another shape than the input.
  const ofOtherShape = (index: number) =>
    errorsOf(index).some((error) => ['type', 'const', 'enum'].includes(error.keyword) && error.schemaPath === `${prefix}${index}/${error.keyword}`);
  const closest = branches.findIndex((_, index) => errorsOf(index).length > 0 && !ofOtherShape(index));
  if (closest >= 0) return explain(errorsOf(closest), part);
  const subject = subjectOf(union, part);
  return [{ field: subject, in: part, message: `${subject} must be ${accepted(branches)}` }];
}

/** What a list of alternatives accepts, in words: "one of: a, b, c" or "an integer from 0 to 2, or null". */
function accepted(branches: Schema[]): string {
  const flat = branches.flatMap((branch) => (Array.isArray(branch.anyOf) ? (branch.anyOf as Schema[]) : [branch]));
  const values = flat.filter((branch) => 'const' in branch || branch.type === 'null' || Array.isArray(branch.enum));
  if (values.length === flat.length) {
    const listed = values.flatMap((branch) => ('const' in branch ? [branch.const] : Array.isArray(branch.enum) ? branch.enum : [null]));
    return `one of: ${listed.map(String).join(', ')}`;
  }
  const words = flat.map(inWords);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')}, or ${words[words.length - 1]}` : (words[0] ?? 'something else');
}

type Schema = Record<string, unknown>;

function inWords(schema: Schema): string {
  if ('const' in schema) return String(schema.const);
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map(String).join(', ')}`;
  const type = String(schema.type);
  if (type === 'string' && typeof schema.format === 'string') return formatName(schema.format);
  if (type === 'integer' || type === 'number') {
    const [min, max] = [schema.minimum, schema.maximum];
    if (typeof min === 'number' && typeof max === 'number') return `${article(type)} from ${min} to ${max}`;
    if (typeof min === 'number') return `${article(type)} of at least ${min}`;
    if (typeof max === 'number') return `${article(type)} of at most ${max}`;
  }
  return article(type);
}

function subjectOf(error: ErrorObject, part: RequestPart): string {
  return error.instancePath.split('/').filter(Boolean).join('.') || (part === 'body' ? 'body' : part);
}

function describe(error: ErrorObject, part: RequestPart): ErrorDetail {
  const base = error.instancePath.split('/').filter(Boolean).join('.');
  const field = (name: string) => (base ? `${base}.${name}` : name);
  const subject = subjectOf(error, part);
  const params = error.params as Record<string, unknown>;
  const detail = (message: string): ErrorDetail => ({ field: subject, in: part, message: `${subject} ${message}` });
  if (params.problem === 'repeated') return detail('is given more than once; give it once');
  const textNumber = part !== 'body' && numberSchema(error);
  if (textNumber) return detail(textNumberMessage(textNumber, params.problem as TextProblem | undefined));
  switch (error.keyword) {
    case 'required':
      return { field: field(String(params.missingProperty)), in: part, message: `${field(String(params.missingProperty))} is required` };
    case 'additionalProperties':
      return {
        field: field(String(params.additionalProperty)),
        in: part,
        message: `${field(String(params.additionalProperty))} is not a known field`,
      };
    case 'type':
      return detail(`must be ${article(String(params.type))}`);
    case 'format':
      return detail(`must be ${formatName(String(params.format))}`);
    case 'enum':
      return detail(`must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`);
    case 'const':
      return detail(`must be ${String(params.allowedValue)}`);
    case 'minimum':
    case 'maximum':
      return detail(`must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${String(params.limit)}`);
    case 'maxLength':
      return detail(`must be at most ${String(params.limit)} characters`);
    case 'minLength':
      return detail(params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters`);
    case 'minItems':
      return detail(`must hold at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`);
    case 'maxItems':
      return detail(`must hold at most ${String(params.limit)} items`);
    case 'uniqueItems':
      return detail('must not hold the same item twice');
    case 'pattern': {
      // The pattern is for machines; the field's description says the form in words.
      const description = (error.parentSchema as Schema | undefined)?.description;
      return detail(typeof description === 'string' ? `is not in the expected form: ${description}` : 'is not in the expected form');
    }
    case 'minProperties':
      return detail('must name at least one field');
    default:
      return detail(error.message ?? 'is invalid');
  }
}

/**
 * A number given as text (query string, path) that is not one, or is out of range, is told with
 * the whole of what is taken, in the words the Twilio-compatible family uses too: "limit must be
 * a whole number from 1 to 100", rather than the one bound it broke or "an integer".
 */
function numberSchema(error: ErrorObject): Schema | undefined {
  const schema = error.parentSchema as Schema | undefined;
  const numeric = schema?.type === 'integer' || schema?.type === 'number';
  return numeric && ['type', 'minimum', 'maximum'].includes(error.keyword) ? schema : undefined;
}

function textNumberMessage(schema: Schema, problem: TextProblem | undefined): string {
  const wanted = inWords(schema).replace(/^an integer/, 'a whole number');
  if (problem === 'blank') return `is blank; it must be ${wanted}`;
  return `must be ${wanted}`;
}

function article(type: string): string {
  const names: Record<string, string> = {
    object: 'a JSON object',
    string: 'a string',
    integer: 'an integer',
    number: 'a number',
    boolean: 'true or false',
    array: 'an array',
    null: 'null',
  };
  return type.split(',').map((t) => names[t] ?? t).join(' or ');
}

function formatName(format: string): string {
  return { uuid: 'a UUID', 'date-time': 'an ISO 8601 date-time such as 2026-01-31T12:00:00Z', uri: 'a URL' }[format] ?? `a valid ${format}`;
}
