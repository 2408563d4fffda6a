// Retention's redaction of stored messages, sent (sms) and received (incoming_sms) alike: the
// text (and a data SMS's payload) goes and the row stays, for statistics; with a hash, the number
// becomes its salted hash.
// A batch is one select and one update, so that no run holds many rows locked at once.
import type { Knex } from 'knex';
import type { Executor } from './database.ts';

export interface RedactionBatch {
  accountId: string;
  /** Messages created before this lose their text. */
  before: Date;
  /** Stored as their redacted_at. */
  at: Date;
  /** How many rows at the most. */
  batch: number;
  /** Replaces each number; without it the numbers stay. */
  hash?: ((phone: string) => string) | undefined;
  /** Narrows the rows further: those a table still needs the text of are left out here. */
  onlyWhere?: (query: Knex.QueryBuilder) => unknown;
}

/** Redacts the next batch of the account's messages in `table` not yet redacted; answers how many. */
export async function redactMessagesBefore(db: Executor, table: 'sms' | 'incoming_sms', { accountId, before, at, batch, hash, onlyWhere }: RedactionBatch): Promise<number> {
  const query = db(table).where({ account_id: accountId }).whereNull('redacted_at').where('created_at', '<', before);
  onlyWhere?.(query);
  const rows: { id: string; phone: string }[] = await query.select('id', 'phone').limit(batch);
  if (rows.length === 0) return 0;
  // A data SMS's payload is its content as a text is: it goes too (empty, as its kind needs one).
  const payload = table === 'sms' ? `, data = case when data is null then null else '' end` : '';
  await db.raw(
    `update ${table} set message = ''${payload}, redacted_at = ?, phone = v.phone
     from unnest(?::uuid[], ?::text[]) as v(id, phone) where ${table}.id = v.id`,
    [at, rows.map((row) => row.id), rows.map((row) => (hash ? hash(row.phone) : row.phone))] as never,
  );
  return rows.length;
}
