// Numbers written in a query string or a path are text until they are read. The validator's
// coercion reads text the way JavaScript's loose equality does, so a blank value (`?limit=` with
// a space, `?limit=+`) became 0 and was refused as "at least 1", or, for the legacy offset, taken
// as the first page; `0x10` was 16. A number given as text must be written as one: digits, an
// optional sign, fraction and exponent, as JSON writes it (spaces around it are forgiven). Blank
// text and a parameter given twice are told as what they are.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';

/** `params.problem` of a refusal made here, which explain() words: see describe. */
export type TextProblem = 'blank' | 'repeated' | 'not_a_number';

type Declared = { type?: unknown; items?: Declared };

const NUMBER_TEXT = /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A validator of a query string or path parameters that refuses numbers written wrong before the
 * validator coerces them, and numbers too large for one after: text that reads as such a number
 * ("1e309") is coerced to Infinity, which ajv's integer, minimum and maximum checks skip, so a
 * page of ?limit=1e309 would be the whole table. (A JSON body needs neither: its numbers are
 * numbers, and ajv's type check refuses Infinity there.)
 */
export function checkingTextNumbers(validate: ValidateFunction, schema: TSchema): ValidateFunction {
  const properties = (schema as { properties?: Record<string, Declared> }).properties ?? {};
  const check: ((data: unknown) => boolean) & { errors?: ValidateFunction['errors'] } = (data) => {
    const entries = data !== null && typeof data === 'object' ? Object.entries(data) : [];
    // Read before validating: the validator coerces the object in place.
    const writtenWrong = entries.flatMap(([key, value]) => problemsOf(key, value, properties[key]));
    const valid = validate(data);
    const refused = new Set(writtenWrong.map((error) => error.instancePath));
    // Read after validating: what the text was coerced to.
    const coerced = data !== null && typeof data === 'object' ? Object.entries(data) : [];
    const overflowed = coerced.flatMap(([key, value]) => overflowsOf(key, value, properties[key])).filter((error) => !refused.has(error.instancePath));
    const own = [...writtenWrong, ...overflowed];
    if (own.length === 0) {
      check.errors = validate.errors;
      return valid;
    }
    // What the validator said of a value refused here is about its coerced form: said instead.
    const inside = (error: ErrorObject) => [...refused].some((path) => error.instancePath === path || error.instancePath.startsWith(`${path}/`));
    check.errors = [...(validate.errors ?? []).filter((error) => !inside(error)), ...own];
    return false;
  };
  return Object.assign(check, { schema: validate.schema, schemaEnv: validate.schemaEnv, errors: validate.errors }) as ValidateFunction;
}

function isNumeric(declared: Declared | undefined): declared is Declared & { type: 'integer' | 'number' } {
  return declared?.type === 'integer' || declared?.type === 'number';
}

function problemsOf(key: string, value: unknown, declared: Declared | undefined): ErrorObject[] {
  if (!declared) return [];
  if (Array.isArray(value) && declared.type !== 'array') {
    return [refusal(`/${key}`, `#/properties/${key}`, declared, 'repeated')];
  }
  const items = Array.isArray(value)
    ? value.map((item: unknown, index) => ({ item, instancePath: `/${key}/${index}`, schemaPath: `#/properties/${key}/items`, schema: declared.items }))
    : [{ item: value, instancePath: `/${key}`, schemaPath: `#/properties/${key}`, schema: declared }];
  return items.flatMap(({ item, instancePath, schemaPath, schema }) => {
    if (!isNumeric(schema) || typeof item !== 'string') return [];
    if (item.trim() === '') return [refusal(instancePath, schemaPath, schema, 'blank')];
    return NUMBER_TEXT.test(item.trim()) ? [] : [refusal(instancePath, schemaPath, schema, 'not_a_number')];
  });
}

function overflowsOf(key: string, value: unknown, declared: Declared | undefined): ErrorObject[] {
  const items = Array.isArray(value)
    ? value.map((item: unknown, index) => ({ item, instancePath: `/${key}/${index}`, schemaPath: `#/properties/${key}/items`, schema: declared?.items }))
    : [{ item: value, instancePath: `/${key}`, schemaPath: `#/properties/${key}`, schema: declared }];
  return items.flatMap(({ item, instancePath, schemaPath, schema }) =>
    typeof item === 'number' && !Number.isFinite(item) ? [refusal(instancePath, schemaPath, schema ?? { type: 'number' }, 'not_a_number')] : [],
  );
}

function refusal(instancePath: string, schemaPath: string, schema: Declared, problem: TextProblem): ErrorObject {
  const type = typeof schema.type === 'string' ? schema.type : 'number';
  return { keyword: 'type', instancePath, schemaPath: `${schemaPath}/type`, params: { type, problem }, parentSchema: schema as Record<string, unknown>, message: `must be ${type}` };
}
