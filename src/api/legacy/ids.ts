// The legacy family shows 24-hex object ids and takes them, and takes the Extended API's UUIDs
// as well, so that clients can mix the two families.
import { AppError, invalidField } from '../../common/errors.ts';
import { OBJECT_ID_PATTERN, isUuid } from '../../common/object-id.ts';

export type AnyId = { uuid: string } | { objectId: string };

export function parseAnyId(value: string, field: string, part: IdSource['in'] = 'body'): AnyId {
  const id = value.trim().toLowerCase();
  if (OBJECT_ID_PATTERN.test(id)) return { objectId: id };
  if (isUuid(id)) return { uuid: id };
  throw invalidField(field, `${field} must be a 24-character object id or a UUID`, 'invalid_id', part);
}

/** One place a request may carry an id: `id` in the query string, `device_id` in the body... */
export interface IdSource {
  field: string;
  in: 'query' | 'body';
  value: string | undefined;
}

/**
 * The id a request names, from whichever of its places carry one (an empty value carries none).
 * Two places with different ids are a 400 naming both: picking one would act on a record the
 * client may not have meant. The same id in both (whatever its case or spacing) is fine.
 */
export function oneIdOf(sources: IdSource[]): IdSource | undefined {
  const given = sources.filter((source) => source.value !== undefined && source.value.trim() !== '');
  if (new Set(given.map((source) => source.value!.trim().toLowerCase())).size > 1) {
    const places = given.map((source) => `${source.field} in the ${source.in === 'query' ? 'query string' : 'body'}`);
    const message = `${places.join(' and ')} name different ids; give the id once, or the same id in each`;
    throw new AppError('validation_failed', message, given.map((source) => ({ field: source.field, in: source.in, message })));
  }
  return given[0];
}
