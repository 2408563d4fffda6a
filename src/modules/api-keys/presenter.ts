import type { Static } from '@sinclair/typebox';
import type { ApiKeyRow } from './repository.ts';
import type { KeyView } from './schema.ts';

/** A key as the API shows it: never its secret nor its hash. */
export function presentKey(row: ApiKeyRow): Static<typeof KeyView> {
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    permissions: row.permissions,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}
