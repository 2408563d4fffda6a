// SMPP: the alphabet an ESME means by data_coding 0 ("SMSC default alphabet"), per credential.
// SMSCs differ (GSM-7 on most, ASCII or Latin-1 on others, Kannel's own configurable), so the
// ESME's side decides: gsm7 (as before), ascii or latin1. Read in submit_sm, data_sm,
// submit_multi and replace_sm, and written in deliver_sm sent with data_coding 0.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table smpp_credentials add column default_data_coding text not null default 'gsm7'
      check (default_data_coding in ('gsm7', 'ascii', 'latin1'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table smpp_credentials drop column default_data_coding`);
}
