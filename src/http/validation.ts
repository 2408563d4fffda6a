// Validation of every request part, answered as the API's 400s. The schemas and the words a
// refusal is told in are shared with the broker (src/common/schema-validation.ts).
import type { ErrorObject, ValidateFunction } from 'ajv';
import { AppError, type ErrorCode } from '../common/errors.ts';
import { findNul } from '../common/nul.ts';
import { explain, MAX_CHARACTERS, type RequestPart } from '../common/schema-validation.ts';

export { compile, type RequestPart } from '../common/schema-validation.ts';

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
