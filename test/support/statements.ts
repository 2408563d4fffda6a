// The statements a piece of work sends to the database, as knex reports them: how tests check
// that something is read once for many, or that a path touches no table it has no business with.
import type { Database } from '../../src/storage/database.ts';

/** A statement as knex's 'query' event gives it: its text, and its transaction's id when inside one. */
export interface SentStatement {
  sql: string;
  bindings?: unknown[];
  __knexTxId?: string;
}

/** The statements sent while `work` runs, in the order they were sent. */
export async function statementsDuring(db: Database, work: () => Promise<unknown>): Promise<SentStatement[]> {
  const sent: SentStatement[] = [];
  const heard = (statement: SentStatement) => void sent.push(statement);
  db.on('query', heard);
  try {
    await work();
  } finally {
    db.off('query', heard);
  }
  return sent;
}
