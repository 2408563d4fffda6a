// Suites that test what only a PostgreSQL server has (several connections locking rows against
// each other, a TCP link to the server that can be cut, several gateways on one database) run on
// PostgreSQL and show as pending under TEST_DATABASE=pglite, instead of vanishing from its run.
import { testDatabase } from './environment.ts';

/**
 * Registers a `before` hook that skips the enclosing describe unless the suite runs on PostgreSQL.
 * Call it first in the describe, before useGateway() or any hook that starts something: a
 * skipped describe then starts nothing, so it has nothing to close.
 */
export function onlyOnPostgres(): void {
  before(function () {
    if (testDatabase().kind !== 'postgres') this.skip();
  });
}
