// The delivery log shows what the receiver answered, not only its status code: the first bytes
// of the body of the last attempt's answer (an error page, a validation message), so a
// misconfigured receiver can be diagnosed from the panel. Null before the first answer and when
// an attempt got none (a refused connection, a timeout).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table webhook_deliveries add column last_response_body text`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table webhook_deliveries drop column last_response_body`);
}
