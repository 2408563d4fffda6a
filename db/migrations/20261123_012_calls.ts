// The call log and call recordings (the device's `record_calls` setting decides whether
// recordings are taken):
// - calls: what a phone reports on its `calls` topic. The phone's own call id makes a re-sent
//   report (QoS 2 redelivery, a reconnect) store nothing new.
// - call_recordings: at most one recording per call; the audio lives in the recording store,
//   the row holds where and what (size, type, checksum). It goes with its call.
// - calls:read and calls:delete are newer than the keys made with every permission there was;
//   like keys:manage (010) and users:manage (011), those keys meant "everything" and get them too.
import type { Knex } from 'knex';
import { ALL_BEFORE as ALL_BEFORE_USERS_MANAGE } from './20261123_011_users_manage_accounts_disabled.ts';

/** Every permission before the call permissions existed (frozen here: the list in the code moves on). */
export const ALL_BEFORE = [...ALL_BEFORE_USERS_MANAGE, 'users:manage'];

const CALL_PERMISSIONS = ['calls:read', 'calls:delete'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('calls', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.uuid('device_id').notNullable().references('devices.id');
    t.text('device_call_id').notNullable();
    t.text('direction').notNullable();
    // E.164 when the number parses, else as the phone reported it (a withheld or short number).
    t.text('phone').notNullable();
    t.integer('sim_slot');
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.integer('duration_seconds').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['device_id', 'device_call_id']);
  });
  await knex.raw(`alter table calls add constraint calls_direction_known check (direction in ('incoming','outgoing','missed'))`);
  // Listing is per account, newest call first, with id as the tie-breaker for stable pages.
  await knex.raw(`create index calls_account_started on calls (account_id, started_at desc, id desc)`);

  await knex.schema.createTable('call_recordings', (t) => {
    t.uuid('call_id').primary().references('calls.id').onDelete('CASCADE');
    t.text('storage_key').notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.text('content_type').notNullable();
    t.double('duration_seconds');
    t.text('sha256').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await grantCallPermissions(knex);
}

/** Gives calls:read and calls:delete to the keys that held every older permission; repeatable. */
export async function grantCallPermissions(knex: Knex): Promise<void> {
  for (const permission of CALL_PERMISSIONS) {
    await knex.raw(
      `update api_keys set permissions = array_append(permissions, ?)
        where permissions @> ?::text[] and not (? = any(permissions))`,
      [permission, ALL_BEFORE, permission],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const permission of CALL_PERMISSIONS) {
    await knex.raw(`update api_keys set permissions = array_remove(permissions, ?)`, [permission]);
  }
  await knex.schema.dropTable('call_recordings');
  await knex.schema.dropTable('calls');
}
