// Twilio-compatible incoming SMS: a credential may be scoped to devices (its sms_url then hears
// only the SMS those phones receive; empty: every phone of the account, as before), and one
// incoming SMS is answered once. Every unscoped credential with an sms_url still hears it; the
// first TwiML answer with a <Message> is recorded here as sent, later ones as not sent (and
// logged). A unique index on the sent row per incoming SMS holds it across nodes.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table twilio_credentials add column device_ids text[] not null default '{}'`);
  // Every TwiML answer with a <Message>, by incoming SMS and delivery; sent: the one whose replies went out.
  await knex.raw(`
    create table twilio_replies (
      incoming_id uuid not null references incoming_sms(id) on delete cascade,
      delivery_id text not null,
      sent boolean not null,
      created_at timestamptz not null default now(),
      primary key (incoming_id, delivery_id)
    )`);
  await knex.raw(`create unique index twilio_replies_sent_once on twilio_replies (incoming_id) where sent`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table twilio_replies`);
  await knex.raw(`alter table twilio_credentials drop column device_ids`);
}
