// A received MMS always ends, and its text reaches the inbox.
// - incoming_mms_parts.missing_reason: why a part will not come (too_large: its upload passed
//   MMS_MAX_MESSAGE_BYTES; type_refused: a type MMS media may not be, or bytes that were not the
//   type reported; not_uploaded: not uploaded within the wait). An MMS ends (completed_at) once
//   every part is uploaded or has a reason, so a refused part no longer keeps it open for ever.
// - incoming_mms_open: the MMS still waiting for parts, oldest first, for the sweep that ends
//   those whose wait is over.
// - incoming_mms_account_phone_created: a conversation's thread reads the MMS received from one
//   number newest first, as it reads the SMS (incoming_sms_account_phone_created).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table incoming_mms_parts add column missing_reason text`);
  await knex.raw(
    `alter table incoming_mms_parts add constraint incoming_mms_parts_missing_known check (missing_reason in ('too_large', 'type_refused', 'not_uploaded'))`,
  );
  await knex.raw(`create index incoming_mms_open on incoming_mms (created_at) where completed_at is null`);
  await knex.raw(`create index incoming_mms_account_phone_created on incoming_mms (account_id, phone, created_at desc, id desc)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index incoming_mms_account_phone_created`);
  await knex.raw(`drop index incoming_mms_open`);
  await knex.raw(`alter table incoming_mms_parts drop column missing_reason`);
}
