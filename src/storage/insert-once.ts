// What a phone reports (a received SMS, a call) carries the phone's own id for it, and a phone
// that did not hear the acknowledgement reports it again. The row is inserted once, keyed by that
// id: the repeat inserts nothing, and its caller hears so (undefined) and announces nothing twice.
import { randomUUID } from 'node:crypto';
import type { Executor } from './database.ts';

export async function insertReportOnce<Row extends { id: string; created_at: Date }>(
  db: Executor,
  table: string,
  values: Omit<Row, 'id' | 'created_at'>,
  reportKey: string[],
): Promise<Row | undefined> {
  const [row] = await db(table)
    .insert({ id: randomUUID(), ...values, created_at: new Date() })
    .onConflict(reportKey)
    .ignore()
    .returning('*');
  return row as Row | undefined;
}
