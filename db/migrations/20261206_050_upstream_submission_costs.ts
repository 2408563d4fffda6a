// What each part an upstream took cost, and what its receipt said:
//
// - upstream_submissions.segments and .cost: the segments the row stands for (one per SMPP part;
//   all of them on a Twilio-compatible provider's one id) and what they were charged at the price
//   of the moment they were handed over, so that a later change of price does not rewrite the
//   account's reports. Null on rows written before: their cost was never recorded per SMS.
// - upstream_submissions.outcome: the part's final receipt (delivered, undelivered,
//   failed_delivery; null: none yet), so that an SMS in parts is delivered only once every part is.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table upstream_submissions add column segments smallint`);
  await knex.raw(`alter table upstream_submissions add column cost numeric(14, 6)`);
  await knex.raw(`alter table upstream_submissions add column outcome text`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table upstream_submissions drop column outcome`);
  await knex.raw(`alter table upstream_submissions drop column cost`);
  await knex.raw(`alter table upstream_submissions drop column segments`);
}
