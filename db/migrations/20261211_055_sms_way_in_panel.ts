// An SMS sent from the control panel (the Extended API with a logged-in user's session) records
// its way in as 'panel' rather than 'api', so its page can say where it came from. Nothing owes
// such an SMS a receipt or a callback: it is treated as 'api' is everywhere else. The check is
// written out in full (not built from a list) so that the upgrade policy's reading of this file
// sees that it only widens.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms drop constraint sms_way_in`);
  // Every row already passed the narrower check this replaces: checking them again would read the
  // whole SMS table while holding the lock that stops every write to it. New rows are checked.
  await knex.raw(`alter table sms add constraint sms_way_in
    check (way_in in ('api', 'legacy', 'smpp', 'twilio', 'mail', 'rule', 'opt-out', 'twiml', 'panel')) not valid`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`update sms set way_in = 'api' where way_in = 'panel'`);
  await knex.raw(`alter table sms drop constraint sms_way_in`);
  await knex.raw(`alter table sms add constraint sms_way_in
    check (way_in in ('api', 'legacy', 'smpp', 'twilio', 'mail', 'rule', 'opt-out', 'twiml')) not valid`);
}
