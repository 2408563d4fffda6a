// An SMS sent from the control panel (the Extended API with a logged-in user's session) records
// its way in as 'panel' rather than 'api', so its page can say where it came from. Nothing owes
// such an SMS a receipt or a callback: it is treated as 'api' is everywhere else.
import type { Knex } from 'knex';

const BEFORE = ['api', 'legacy', 'smpp', 'twilio', 'mail', 'rule', 'opt-out', 'twiml'];

function wayInCheck(ways: string[]): string {
  return `alter table sms add constraint sms_way_in check (way_in in (${ways.map((way) => `'${way}'`).join(', ')}))`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sms drop constraint sms_way_in`);
  await knex.raw(wayInCheck([...BEFORE, 'panel']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`update sms set way_in = 'api' where way_in = 'panel'`);
  await knex.raw(`alter table sms drop constraint sms_way_in`);
  await knex.raw(wayInCheck(BEFORE));
}
