// Users who log in to the control panel, and their sessions. A user belongs to one account and
// sees only it; `is_admin` marks an instance administrator. A session row holds only the SHA-256
// of its cookie token, so a copy of the database cannot be replayed as a login.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    // Stored lowercased, so the unique index is case-insensitive in effect.
    t.text('email').notNullable().unique();
    t.text('password_hash').notNullable();
    t.text('role').notNullable();
    t.boolean('is_admin').notNullable().defaultTo(false);
    t.boolean('must_change_password').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_login_at', { useTz: true });
    t.timestamp('disabled_at', { useTz: true });
    t.index(['account_id']);
  });
  await knex.raw(`alter table users add constraint users_role_known check (role in ('owner','viewer'))`);

  await knex.schema.createTable('sessions', (t) => {
    t.uuid('id').primary();
    t.text('token_hash').notNullable().unique();
    t.text('csrf_token').notNullable();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Absolute end, whatever the activity; the idle end is last_seen_at + the idle timeout.
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.text('address');
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sessions');
  await knex.schema.dropTable('users');
}
