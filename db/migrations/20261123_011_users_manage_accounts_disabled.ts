// Three things the control panel's API needs:
// - users:manage (the account's users over HTTP) is newer than the keys made with every
//   permission there was; like keys:manage in migration 010, those keys meant "everything" and
//   get it too, and keys made with a chosen set keep exactly that set.
// - accounts.disabled_at: the instance administrator can disable an account; its keys and
//   sessions are then refused.
// - The dashboard counts SMS sent and failed per hour over the last day from the status history.
//   That table has no account, so a partial index over just those outcomes, by time, keeps the
//   count to the last day's outcomes (joined to their SMS for the account) however long the
//   history grows.
import type { Knex } from 'knex';
import { ALL_BEFORE as ALL_BEFORE_KEYS_MANAGE } from './20261122_010_keys_manage.ts';

/** Every permission before users:manage existed (frozen here: the list in the code moves on). */
export const ALL_BEFORE = [...ALL_BEFORE_KEYS_MANAGE, 'keys:manage'];

/** The history statuses the dashboard counts per hour. */
export const HOURLY_OUTCOMES = ['sent', 'failed_send', 'failed_delivery'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `update api_keys set permissions = array_append(permissions, 'users:manage')
      where permissions @> ?::text[] and not ('users:manage' = any(permissions))`,
    [ALL_BEFORE],
  );
  await knex.raw(`alter table accounts add column if not exists disabled_at timestamptz`);
  await knex.raw(
    `create index if not exists sms_status_history_outcomes on sms_status_history (created_at)
      where status in ('sent', 'failed_send', 'failed_delivery')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index if exists sms_status_history_outcomes`);
  await knex.raw(`alter table accounts drop column if exists disabled_at`);
  await knex.raw(`update api_keys set permissions = array_remove(permissions, 'users:manage')`);
}
