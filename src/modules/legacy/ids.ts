// The legacy family shows 24-hex object ids and takes them, and takes the Extended API's UUIDs
// as well, so that clients can mix the two families.
import { invalidField } from '../../common/errors.ts';
import { OBJECT_ID_PATTERN, isUuid } from '../../common/object-id.ts';

export type AnyId = { uuid: string } | { objectId: string };

export function parseAnyId(value: string, field: string): AnyId {
  const id = value.trim().toLowerCase();
  if (OBJECT_ID_PATTERN.test(id)) return { objectId: id };
  if (isUuid(id)) return { uuid: id };
  throw invalidField(field, `${field} must be a 24-character object id or a UUID`, 'invalid_id');
}
