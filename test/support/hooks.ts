// Mocha global fixtures: the control panel is bundled if its sources changed. Against PostgreSQL
// (the default), a fresh database is created for the run, migrated once, and dropped at the end.
// With TEST_DATABASE=pglite every gateway a test starts gets its own in-memory embedded database.
import { randomBytes } from 'node:crypto';
import knexModule from 'knex';
import { closeDatabase, migrate, openDatabase } from '../../src/storage/database.ts';
import { TEST_PASSWORD_HASH_COST, testDatabase } from './environment.ts';
import { ANY_KEY } from '../../src/modules/webhooks/outbound/secret-key-check.ts';
import { ensurePanelBuilt } from '../../scripts/panel-build.js';

let created: { admin: string; name: string } | undefined;

// Inherited by every command a test runs (see TEST_PASSWORD_HASH_COST).
process.env.PASSWORD_HASH_COST ??= String(TEST_PASSWORD_HASH_COST);

export async function mochaGlobalSetup(): Promise<void> {
  // Gateways under test serve the control panel from dist/panel, as the installed one does.
  await ensurePanelBuilt();
  const target = testDatabase();
  if (target.kind === 'pglite') return;
  const name = `sms_gateway_test_${randomBytes(4).toString('hex')}`;
  const admin = knexModule.knex({ client: 'pg', connection: target.adminUrl, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`create database ${name}`);
  } finally {
    await admin.destroy();
  }
  created = { admin: target.adminUrl, name };
  const url = new URL(target.adminUrl);
  url.pathname = `/${name}`;
  process.env.TEST_DATABASE_URL = url.toString();
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: ':memory:' });
  await migrate(db);
  // The suite's gateways and commands share this database with keys of their own (a random one
  // each, or the checkout's DATA_DIR): the database says it takes any key (secret-key-check.ts).
  await db('secret_key_check').insert({ id: 1, check_value: ANY_KEY });
  await closeDatabase(db);
}

export async function mochaGlobalTeardown(): Promise<void> {
  if (!created || process.env.KEEP_TEST_DB) return;
  const admin = knexModule.knex({ client: 'pg', connection: created.admin, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`drop database if exists ${created.name} with (force)`);
  } finally {
    await admin.destroy();
  }
}
