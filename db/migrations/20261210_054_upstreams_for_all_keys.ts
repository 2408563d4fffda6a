// upstreams:read and upstreams:write came with 20261206_047_upstreams, which gave them to no key:
// a gateway upgraded past it left its first-start key and the keys made with
// `keys create --permissions all` without them (403 on the upstreams and routes API), while a fresh
// install's first-start key holds them. Those keys meant "everything"; like keys:manage (010),
// users:manage (011), the call permissions (012) and the opt-out ones (025), they get them.
// Keys made with a chosen set keep exactly that set.
import type { Knex } from 'knex';

/** Every ordinary permission there was before these (frozen here: the list in the code moves on). */
export const ALL_BEFORE = [
  'sms:send', 'sms:read', 'sms:delete', 'devices:read', 'devices:settings', 'devices:write', 'devices:monitor',
  'webhooks:read', 'webhooks:write', 'keys:manage', 'users:manage', 'calls:read', 'calls:delete',
  'suppressions:read', 'suppressions:write', 'inbound_rules:read', 'inbound_rules:write',
];

/** What this step grants them. */
export const NEW_PERMISSIONS = ['upstreams:read', 'upstreams:write'];

export async function up(knex: Knex): Promise<void> {
  for (const permission of NEW_PERMISSIONS) {
    await knex.raw(
      `update api_keys set permissions = array_append(permissions, ?) where permissions @> ?::text[] and not (? = any(permissions))`,
      [permission, ALL_BEFORE, permission],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const permission of NEW_PERMISSIONS) {
    await knex.raw(`update api_keys set permissions = array_remove(permissions, ?) where permissions @> ?::text[]`, [
      permission,
      ALL_BEFORE,
    ]);
  }
}
