// knex's client for the embedded engine, made to answer as knex's PostgreSQL client does.
// knex-pglite names a query's command after knex's method, and knex's method for a delete is
// "del": knex then finds no DELETE and hands back PGlite's whole result object where the
// PostgreSQL driver gives the number of rows deleted. A repository that counts what it deleted
// (`(await q.delete()) > 0`, a purge that says how many went) would be silently wrong on the
// default database only.
import type { Knex } from 'knex';

interface CompiledQuery {
  method?: string;
}

/** What this needs of the client class: its (untyped in knex's declarations) response step. */
type ClientClass = new (config: Knex.Config) => { processResponse(query: CompiledQuery, runner: unknown): unknown };

/** The knex-pglite client class, with deletes answering their row count. */
export async function pgliteKnexClient(): Promise<Knex.Config['client']> {
  const { default: ClientPgLite } = await import('knex-pglite');
  class CountingDeletes extends (ClientPgLite as unknown as ClientClass) {
    override processResponse(query: CompiledQuery, runner: unknown): unknown {
      return super.processResponse(query.method === 'del' ? { ...query, method: 'delete' } : query, runner);
    }
  }
  return CountingDeletes as unknown as Knex.Config['client'];
}
