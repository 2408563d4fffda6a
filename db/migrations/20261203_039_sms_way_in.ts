// How each SMS came in (sms.way_in): the Extended API (and what speaks it: the panel, MCP, the
// CLI), the legacy API, SMPP submit_sm, the Twilio-compatible API, email-to-SMS, or an SMS the
// gateway wrote itself in answer to a received one (an inbound rule, an opt-out keyword, a
// receiver's TwiML). A status change then tells from its SMS alone whether SMPP may owe a receipt
// or Twilio a StatusCallback: the SMS of every other way costs those features no query, on any
// node, with nothing to learn, cache or keep in step between nodes.
//
// The SMS already stored came in by the API unless their SMPP or Twilio record says otherwise (a
// Twilio message sent without a StatusCallback has no record and stays 'api': it is owed nothing).
//
// During a rolling upgrade the nodes still on the previous version write SMS without naming the
// way in, and a node of this version must still write their receipts and callbacks. Two triggers
// mark those SMS as the previous version records them: submit_sm records the SMPP submission
// before it writes the SMS, and the Twilio API records the StatusCallback after the SMS, in its
// transaction. This version names the way in itself, so once every node runs it they find nothing
// left to mark (a later version may drop them).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A constant default: the column is added without rewriting the table.
  await knex.raw(`alter table sms add column way_in text not null default 'api'`);
  // Written out (the same statement as ever): the upgrade policy reads a later, wider check against it.
  await knex.raw(`alter table sms add constraint sms_way_in check (way_in in ('api', 'legacy', 'smpp', 'twilio', 'mail', 'rule', 'opt-out', 'twiml'))`);
  await knex.raw(`update sms set way_in = 'smpp' where id in (select sms_id from smpp_submissions)`);
  await knex.raw(`update sms set way_in = 'twilio' where id in (select sms_id from twilio_messages)`);
  await knex.raw(`
    create function sms_way_in_from_smpp_submission() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from smpp_submissions where sms_id = new.id) then new.way_in := 'smpp'; end if;
      return new;
    end $$`);
  await knex.raw(`
    create trigger sms_way_in_smpp before insert on sms
      for each row when (new.way_in = 'api') execute function sms_way_in_from_smpp_submission()`);
  await knex.raw(`
    create function sms_way_in_from_twilio_message() returns trigger language plpgsql as $$
    begin
      update sms set way_in = 'twilio' where id = new.sms_id and way_in = 'api';
      return null;
    end $$`);
  await knex.raw(`create trigger sms_way_in_twilio after insert on twilio_messages for each row execute function sms_way_in_from_twilio_message()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop trigger sms_way_in_twilio on twilio_messages`);
  await knex.raw(`drop function sms_way_in_from_twilio_message()`);
  await knex.raw(`drop trigger sms_way_in_smpp on sms`);
  await knex.raw(`drop function sms_way_in_from_smpp_submission()`);
  await knex.raw(`alter table sms drop column way_in`);
}
