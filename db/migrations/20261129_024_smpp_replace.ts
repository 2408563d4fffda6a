// replace_sm carries no data_coding: its text is in the coding of the message it replaces. The
// submission record keeps the coding the ESME submitted with, so that the replacement can be read.
// Rows written before this migration were all read as submitted; 0 (GSM-7) is the SMPP default.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table smpp_submissions add column data_coding smallint not null default 0`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table smpp_submissions drop column data_coding`);
}
