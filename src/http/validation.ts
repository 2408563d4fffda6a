// Validation of every request part, answered as the API's 400s. The schemas and the words a
// refusal is told in are shared with the broker (src/common/schema-validation.ts).
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { AppError, type ErrorCode } from '../common/errors.ts';
import { findNul } from '../common/nul.ts';
import { compile as compileSchema, explain, MAX_CHARACTERS, type RequestPart } from '../common/schema-validation.ts';

export type { RequestPart } from '../common/schema-validation.ts';

/**
 * A validator of one request part. A body's validator first takes null given for an optional
 * member as the member not given (see nullsAsAbsent), so that every body the API checks, a route's
 * own or each row of a batch, reads null the same way. (The broker's payloads do not: the device
 * protocol says what a phone sends.)
 */
export function compile(schema: TSchema, part: RequestPart): ValidateFunction {
  const validate = compileSchema(schema, part);
  if (part !== 'body') return validate;
  const dropAbsentNulls = nullsAsAbsent(schema);
  const check = ((data: unknown) => {
    dropAbsentNulls(data);
    const valid = validate(data);
    check.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return Object.assign(check, { schema: validate.schema, schemaEnv: validate.schemaEnv, errors: validate.errors });
}

/** Runs a compiled validator; throws a 400 AppError that names every offending field. */
export function check(validate: ValidateFunction, data: unknown, part: RequestPart): void {
  if (validate(data)) return;
  const details = explain(validate.errors ?? [], part);
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

type Schema = Record<string, unknown>;

/**
 * Null given for an optional member is the member not given. Many clients write every member of
 * their model and null for those not set (Jackson, System.Text.Json, Pydantic's defaults, most
 * generated clients); refusing that would make the API unusable from them for no gain. A member
 * whose schema accepts null keeps it (its null means something: "clear this"), a required member's
 * null is still refused, and a member the schema does not know is still a 400. Objects are followed
 * down through members and array items; a union of object shapes only at its own level, where
 * which branch the input means is not yet known.
 */
function nullsAsAbsent(schema: TSchema): (data: unknown) => void {
  return (data) => dropNulls(schema as Schema, data);
}

function dropNulls(schema: Schema, data: unknown): void {
  if (Array.isArray(data)) {
    if (isSchema(schema.items)) for (const item of data) dropNulls(schema.items, item);
    return;
  }
  if (data === null || typeof data !== 'object') return;
  const record = data as Record<string, unknown>;
  const shapes = [schema, ...[schema.anyOf, schema.oneOf].flatMap((branches) => (Array.isArray(branches) ? branches.filter(isSchema) : []))]
    .filter((shape) => isSchema(shape.properties));
  for (const [name, value] of Object.entries(record)) {
    const members = shapes.filter((shape) => name in (shape.properties as Schema)).map((shape) => ({ shape, member: (shape.properties as Record<string, Schema>)[name]! }));
    if (members.length === 0) continue;
    if (value === null) {
      const meansSomething = members.some(({ shape, member }) => acceptsNull(member) || (Array.isArray(shape.required) && shape.required.includes(name)));
      if (!meansSomething) delete record[name];
    } else if (shapes.length === 1) {
      dropNulls(members[0]!.member, value);
    }
  }
}

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether null is a value the schema takes (then a null given is that value, not an absence). */
function acceptsNull(schema: Schema): boolean {
  if ('const' in schema) return schema.const === null;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if (schema.type !== undefined) return schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'));
  for (const branches of [schema.anyOf, schema.oneOf]) if (Array.isArray(branches)) return branches.filter(isSchema).some(acceptsNull);
  if (Array.isArray(schema.allOf)) return schema.allOf.filter(isSchema).every(acceptsNull);
  // No type at all (Type.Unknown): null is a value like any other.
  return true;
}
