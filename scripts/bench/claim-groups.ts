// The phones' claim with device groups: what a claim costs on a pool of CLAIM_POOL waiting SMS
// (default 10,000), for a device in no group and for one in a group, with CLAIM_GROUPED percent of
// the pool kept for a group (default 0, then 10). Each claim runs in a transaction rolled back, so
// every one sees the same pool. "without groups" is the claim's statement as it was before groups:
// the same statement less its group condition.
//
// Printed: each case's median and p99 time of CLAIM_RUNS claims (default 200) of CLAIM_ROOM SMS
// (default 5), and the plan (EXPLAIN ANALYZE, BUFFERS) of one claim of each statement.
//
// Run: npx tsx scripts/bench/claim-groups.ts (PostgreSQL at BENCH_PG_URL).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { claimSms, type ClaimantDevice } from '../../src/modules/delivery/repository.ts';
import { freshDatabase, positiveIntegerSetting, printTable, startBenchGateway, stats } from './support.ts';

const POOL = positiveIntegerSetting('CLAIM_POOL', 10_000);
const RUNS = positiveIntegerSetting('CLAIM_RUNS', 200);
const ROOM = positiveIntegerSetting('CLAIM_ROOM', 5);
const GROUP_NOW = ' and device_group is null';
const GROUP_MATCH = ' and (device_group is null or device_group = ?)';

/** Fills the pool: `grouped` of every 100 SMS kept for group "g", the rest for any phone. */
async function fill(db: Knex, accountId: string, grouped: number): Promise<void> {
  await db.raw(`delete from sms where account_id = ?`, [accountId]);
  const at = Date.now() - POOL * 1000;
  for (let start = 0; start < POOL; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, POOL - start) }, (_, i) => {
      const n = start + i;
      return {
        id: randomUUID(), object_id: `bench${n}`, account_id: accountId, phone: `+4479111${String(n).padStart(5, '0')}`, message: 'bench',
        status: 'pending', priority: 0, created_at: new Date(at + n * 1000), updated_at: new Date(at + n * 1000), kind: 'text',
        device_group: n % 100 < grouped ? 'g' : null,
      };
    });
    await db('sms').insert(rows);
  }
  await db.raw('analyze sms');
}

/** The claim's statement for the device, as claimSms sends it (captured from a claim rolled back). */
async function claimStatement(db: Knex, device: ClaimantDevice): Promise<{ sql: string; bindings: unknown[] }> {
  let sent: { sql: string; bindings: unknown[] } | undefined;
  const listen = (query: { sql: string; bindings?: unknown[] }) => {
    // The driver's numbered placeholders ($1...) back to knex's, in the same order.
    if (query.sql.includes('with candidates as')) sent ??= { sql: query.sql.replace(/\$\d+/g, '?'), bindings: query.bindings ?? [] };
  };
  db.on('query', listen);
  const trx = await db.transaction();
  try {
    await claimSms(trx, device, ROOM, Date.now());
  } finally {
    await trx.rollback();
    db.off('query', listen);
  }
  return sent!;
}

/** One run of the statement in a transaction rolled back: milliseconds. */
async function timed(db: Knex, statement: { sql: string; bindings: unknown[] }): Promise<number> {
  const trx = await db.transaction();
  try {
    const began = performance.now();
    await trx.raw(statement.sql, statement.bindings as never);
    return performance.now() - began;
  } finally {
    await trx.rollback();
  }
}

function withoutGroup(statement: { sql: string; bindings: unknown[] }, group: string | null): { sql: string; bindings: unknown[] } {
  if (group === null) return { sql: statement.sql.replace(GROUP_NOW, ''), bindings: statement.bindings };
  const at = statement.sql.indexOf(GROUP_MATCH);
  const index = statement.sql.slice(0, at).split('?').length - 1;
  return { sql: statement.sql.replace(GROUP_MATCH, ''), bindings: statement.bindings.filter((_, i) => i !== index) };
}

async function plan(db: Knex, statement: { sql: string; bindings: unknown[] }): Promise<string> {
  const trx = await db.transaction();
  try {
    const { rows } = await trx.raw(`explain (analyze, buffers, costs off, timing off) ${statement.sql}`, statement.bindings as never);
    return (rows as { 'QUERY PLAN': string }[]).map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await trx.rollback();
  }
}

async function main(): Promise<void> {
  const database = await freshDatabase('claim_groups');
  const { gateway, accountId } = await startBenchGateway(database.url);
  const db = gateway.services.db as unknown as Knex;
  try {
    const { device } = await gateway.services.devices.register(accountId, 'bench');
    const rows: Record<string, string | number>[] = [];
    const plans: string[] = [];
    for (const grouped of [0, 10, 90]) {
      await fill(db, accountId, grouped);
      for (const [label, group, strip] of [
        ['no group, without groups (before)', null, true],
        ['no group', null, false],
        ['in group g', 'g', false],
      ] as const) {
        const claimant: ClaimantDevice = { id: device.id, account_id: accountId, capabilities: null, group };
        const captured = await claimStatement(db, claimant);
        const statement = strip ? withoutGroup(captured, group) : captured;
        const times: number[] = [];
        for (let run = 0; run < RUNS; run++) times.push(await timed(db, statement));
        const { p50, p99 } = stats(times);
        rows.push({ pool: POOL, 'kept for g': `${grouped}%`, claim: label, p50_ms: p50.toFixed(2), p99_ms: p99.toFixed(2) });
        plans.push(`--- ${grouped}% kept for g, ${label}\n${await plan(db, statement)}`);
      }
    }
    printTable(`claim of ${ROOM} SMS, ${RUNS} runs each (rolled back)`, rows);
    console.log(plans.join('\n\n'));
  } finally {
    await gateway.stop();
    await database.drop();
  }
}

await main();
