// Email to SMS, per account: which part of a mail becomes the SMS text (subject, body or both). An
// account without a row follows the gateway's SMTP_TEXT; choosing writes a row, and going back to
// the gateway's default deletes it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table mail_settings (
      account_id uuid primary key references accounts(id) on delete cascade,
      text text not null check (text in ('subject', 'body', 'both')),
      updated_at timestamptz not null default now()
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table mail_settings`);
}
