// A replayed Idempotency-Key answer is the first answer to the byte: the same status and the same
// JSON text, keys in the same order. jsonb keeps neither (it orders keys its own way), so the text
// is kept as written in a column of its own. The jsonb column stays written as well, for a node of
// the release before, which reads only it; it can go in a later release's contract step.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table idempotency_keys add column response_text text`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table idempotency_keys drop column response_text`);
}
