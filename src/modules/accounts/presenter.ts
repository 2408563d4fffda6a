import type { Static } from '@sinclair/typebox';
import type { AccountSummary } from './repository.ts';
import type { AccountView } from './schema.ts';

/** `ownAccountId`: the administrator's own account, which the panel does not offer to disable. */
export function presentAccount(row: AccountSummary, ownAccountId: string): Static<typeof AccountView> {
  return {
    id: row.id,
    name: row.name,
    created_at: row.created_at.toISOString(),
    disabled: row.disabled_at !== null,
    disabled_at: row.disabled_at?.toISOString() ?? null,
    users: Number(row.users),
    devices: Number(row.devices),
    max_send_attempts: Number(row.max_send_attempts),
    yours: row.id === ownAccountId,
  };
}
