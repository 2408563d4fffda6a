// keys:manage (create, list and revoke keys over HTTP) is newer than the keys made with every
// permission there was: the first-start key and `keys create --permissions all`. They meant
// "everything", so they get it too; keys made with a chosen set keep exactly that set.
import type { Knex } from 'knex';

/** Every permission before keys:manage existed (frozen here: the list in the code moves on). */
export const ALL_BEFORE = [
  'sms:send',
  'sms:read',
  'sms:delete',
  'devices:read',
  'devices:settings',
  'devices:write',
  'devices:monitor',
  'webhooks:read',
  'webhooks:write',
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `update api_keys set permissions = array_append(permissions, 'keys:manage')
      where permissions @> ?::text[] and not ('keys:manage' = any(permissions))`,
    [ALL_BEFORE],
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`update api_keys set permissions = array_remove(permissions, 'keys:manage')`);
}
