// USSD sessions: a code dialled on one of the account's phones, the network's answers and the
// client's replies. A session is pending while the gateway waits for the phone, waiting_reply
// while it waits for the client, and ends completed or failed. `step` counts the requests sent to
// the phone (the dial is 0, each reply one more): a phone answers naming the step, so a repeated
// or late answer of an earlier step changes nothing. `expires_at` bounds the wait of the current
// step; the expiry sweep (any node) ends what is overdue, found through a partial index.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ussd_sessions', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.uuid('device_id').notNullable().references('devices.id').onDelete('CASCADE');
    t.text('code').notNullable();
    // -2: the phone's default SIM; 0..2: a slot.
    t.integer('sim').notNullable();
    t.text('status').notNullable();
    t.integer('step').notNullable().defaultTo(0);
    // The network's latest text (a menu, or the final answer); null until it answers.
    t.text('message');
    // Why a failed session failed: the phone's reason, or "timeout".
    t.text('error');
    // What was said, in order: [{ from: "client" | "network", text, at }].
    t.jsonb('history').notNullable().defaultTo('[]');
    t.integer('timeout_seconds').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
  });
  await knex.raw(`alter table ussd_sessions add constraint ussd_sessions_status_known check (status in ('pending','waiting_reply','completed','failed'))`);
  // A device's sessions, newest first, with id as the tie-breaker for stable pages.
  await knex.raw(`create index ussd_sessions_device_created on ussd_sessions (device_id, created_at desc, id desc)`);
  // A phone runs one USSD session at a time: a second one is refused while one is open.
  await knex.raw(`create unique index ussd_sessions_one_open_per_device on ussd_sessions (device_id) where status in ('pending','waiting_reply')`);
  // The expiry sweep reads only the open sessions, oldest deadline first.
  await knex.raw(`create index ussd_sessions_open_expiry on ussd_sessions (expires_at) where status in ('pending','waiting_reply')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('ussd_sessions');
}
