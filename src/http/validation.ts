// JSON Schema validation for every request part. The schemas are TypeBox objects, so the same
// definition types the handler, validates the request and is published in the OpenAPI document.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { AppError, type ErrorCode, type ErrorDetail } from '../common/errors.ts';
import { exceedsCharacters } from '../common/characters.ts';
import { UUID_PATTERN } from '../common/object-id.ts';
import { findNul } from '../common/nul.ts';

// ajv-formats is CommonJS with a default export that TypeScript sees one level down.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export type RequestPart = 'body' | 'query' | 'path';

/**
 * `x-maxCharacters`: a length limit counted the way a person counts characters (grapheme
 * clusters), so an emoji with a skin tone is one character. JSON Schema's maxLength counts code
 * points, which would count that emoji as two (spec 4.1: "counted in characters not bytes").
 */
export const MAX_CHARACTERS = 'x-maxCharacters';

function createAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, coerceTypes: coerce, useDefaults: true, strict: true });
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

/** RFC 3339 date-time that names a real calendar day (no February 31st, no hour 24). */
function isDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth;
}

// Bodies are JSON and must have the declared types; query strings and path parameters are text
// and are coerced ("10" -> 10) before their schema is applied.
const bodyAjv = createAjv(false);
const textAjv = createAjv(true);

export function compile(schema: TSchema, part: RequestPart): ValidateFunction {
  return (part === 'body' ? bodyAjv : textAjv).compile(schema);
}

/** Runs a compiled validator; throws a 400 AppError that names every offending field. */
export function check(validate: ValidateFunction, data: unknown, part: RequestPart): void {
  if (validate(data)) return;
  const details = (validate.errors ?? []).map((error) => describe(error, part));
  throw new AppError(codeFor(validate.errors ?? [], part), details[0]?.message ?? 'request is invalid', details);
}

/** Text with a NUL character cannot be stored: refuse it as a 400 naming the field. */
export function refuseNul(data: unknown, part: RequestPart): void {
  const field = findNul(data);
  if (field) {
    const message = `${field} must be text without NUL characters (\\u0000) or unpaired surrogates`;
    throw new AppError('validation_failed', message, [{ field, in: part, message }]);
  }
}

function codeFor(errors: ErrorObject[], part: RequestPart): ErrorCode {
  if (errors.some((error) => error.keyword === MAX_CHARACTERS && error.instancePath === '/message')) {
    return 'message_too_long';
  }
  if (part === 'path' && errors.some((error) => error.keyword === 'format')) return 'invalid_id';
  return 'validation_failed';
}

function describe(error: ErrorObject, part: RequestPart): ErrorDetail {
  const base = error.instancePath.split('/').filter(Boolean).join('.');
  const field = (name: string) => (base ? `${base}.${name}` : name);
  const subject = base || (part === 'body' ? 'body' : part);
  const params = error.params as Record<string, unknown>;
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
      return { field: subject, in: part, message: `${subject} must be ${article(String(params.type))}` };
    case 'format':
      return { field: subject, in: part, message: `${subject} must be ${formatName(String(params.format))}` };
    case 'enum':
      return {
        field: subject,
        in: part,
        message: `${subject} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'minimum':
    case 'maximum':
      return { field: subject, in: part, message: `${subject} must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${String(params.limit)}` };
    case 'maxLength':
      return { field: subject, in: part, message: `${subject} must be at most ${String(params.limit)} characters` };
    case 'minLength':
      return { field: subject, in: part, message: params.limit === 1 ? `${subject} must not be empty` : `${subject} must be at least ${String(params.limit)} characters` };
    case 'minProperties':
      return { field: subject, in: part, message: `${subject} must name at least one field` };
    default:
      return { field: subject, in: part, message: `${subject} ${error.message ?? 'is invalid'}` };
  }
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
