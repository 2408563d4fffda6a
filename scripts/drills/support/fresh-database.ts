// A database of a drill's own on the local PostgreSQL (DRILL_PG_URL names the server to connect
// to for creating it), dropped afterwards: the gateway migrates it as it would a new deployment.
import { randomBytes } from 'node:crypto';
import knexModule from 'knex';

export const ADMIN_URL = process.env.DRILL_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Creates `sms_gateway_drill_<label>_<random>`; `drop` removes it, sessions still open included. */
export async function freshDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `sms_gateway_drill_${label}_${randomBytes(3).toString('hex')}`;
  const admin = () => knexModule.knex({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  const create = admin();
  try {
    await create.raw(`create database ${name}`);
  } finally {
    await create.destroy();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = admin();
      try {
        await again.raw(`drop database if exists ${name} with (force)`);
      } finally {
        await again.destroy();
      }
    },
  };
}
