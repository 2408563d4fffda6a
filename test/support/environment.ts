// Which database the suite runs against. PostgreSQL by default (TEST_PG_URL names the server's
// maintenance database); TEST_DATABASE=pglite switches to the embedded one.
export type TestDatabase = { kind: 'postgres'; adminUrl: string } | { kind: 'pglite' };

/** The PostgreSQL server's maintenance database, from which the tests create databases of their own. */
export const POSTGRES_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function testDatabase(): TestDatabase {
  if (process.env.TEST_DATABASE === 'pglite') return { kind: 'pglite' };
  return { kind: 'postgres', adminUrl: POSTGRES_ADMIN_URL };
}

/** The database URL a gateway under test uses, or undefined for the embedded database. */
export function testDatabaseUrl(): string | undefined {
  if (testDatabase().kind === 'pglite') return undefined;
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('the global test setup did not create a database (is test/support/hooks.ts loaded?)');
  return url;
}

/**
 * Password hashes in tests cost 2^10 rather than production's 2^15 (PASSWORD_HASH_COST): the
 * suite creates and logs in hundreds of users, and the cost only changes how slow a hash is.
 * Gateways in this process take it from startGateway; commands the tests run, from the
 * environment (hooks.ts sets it).
 */
export const TEST_PASSWORD_HASH_COST = 10;
