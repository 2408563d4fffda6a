// An empty PostgreSQL database of a test's own, for tests of the real `serve` on a database it
// must find empty (first start), and for tests that count what the whole database holds (the
// suite's shared database is never empty, and other files' rows change under them).
import { randomBytes } from 'node:crypto';
import knexModule from 'knex';
import { POSTGRES_ADMIN_URL } from './environment.ts';

export interface EmptyDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function emptyDatabase(adminUrl: string, label: string): Promise<EmptyDatabase> {
  const name = `sms_gateway_${label}_${randomBytes(4).toString('hex')}`;
  const admin = () => knexModule.knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  const create = admin();
  await create.raw(`create database ${name}`).finally(() => create.destroy());
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const db = admin();
      await db.raw(`drop database if exists ${name} with (force)`).finally(() => db.destroy());
    },
  };
}

/** An empty database of the test's own on the suite's PostgreSQL server. */
export function ownDatabase(label: string): Promise<EmptyDatabase> {
  return emptyDatabase(POSTGRES_ADMIN_URL, label);
}
