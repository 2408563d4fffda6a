import type { Static } from '@sinclair/typebox';
import type { UserRow } from './repository.ts';
import type { UserView } from './schema.ts';

/** A user as the API shows them: never the password hash. */
export function presentUser(row: UserRow): Static<typeof UserView> {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    is_admin: row.is_admin,
    must_change_password: row.must_change_password,
    disabled: row.disabled_at !== null,
    disabled_at: row.disabled_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    last_login_at: row.last_login_at?.toISOString() ?? null,
  };
}
