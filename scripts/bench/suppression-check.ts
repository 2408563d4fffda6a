// The cost of the suppression check on sends, on PostgreSQL: a suppression list of
// SUPPRESSED_ROWS (default 100,000) numbers for one account, then POST /sms (one lookup of its
// recipient) and POST /sms/bulk?dry_run=true with 1,000 messages (one lookup for all 1,000),
// each measured with the list, with an empty list, and (the baseline, same run) unchecked: sent
// with a key holding sms:send_transactional.
import { ALL_ORDINARY } from '../../src/modules/api-keys/permissions.ts';
import { freshDatabase, printTable, startBenchGateway, stats, timeSequential } from './support.ts';

const ROWS = Number(process.env.SUPPRESSED_ROWS ?? 100_000);
const SINGLE = Number(process.env.SINGLE_REQUESTS ?? 500);
const BULKS = Number(process.env.BULK_REQUESTS ?? 30);

const database = await freshDatabase('suppressions');
const { gateway, accountId, baseUrl, key: transactionalKey } = await startBenchGateway(database.url);
// The bench's own key holds every permission, sms:send_transactional included, which skips the check.
const { key: ordinaryKey } = await gateway.services.apiKeys.create(accountId, [...ALL_ORDINARY]);
let key = ordinaryKey;
const post = async (path: string, body: unknown, expected: number) => {
  const response = await fetch(`${baseUrl}/api/ext/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status !== expected) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
};
const bulk = { messages: Array.from({ length: 1000 }, (_, i) => ({ phone: `+7916${String(3_000_000 + i * 7).padStart(7, '0')}`, message: `bulk ${i}` })) };

async function measure(label: string) {
  const single = stats(await timeSequential(SINGLE, (i) => post('/sms', { phone: `+7916${String(5_000_000 + i).padStart(7, '0')}`, message: 'hello' }, 201)));
  const dry = stats(await timeSequential(BULKS, () => post('/sms/bulk?dry_run=true', bulk, 200)));
  return [
    { list: label, request: 'POST /sms', ...single },
    { list: label, request: 'POST /sms/bulk?dry_run (1,000)', ...dry },
  ];
}

try {
  const rows = [...(await measure('empty'))];
  const db = gateway.services.db;
  const started = performance.now();
  await db.raw(
    `insert into suppressions (id, account_id, phone, source, created_at)
     select gen_random_uuid(), ?, '+7916' || lpad((i * 13 % 10000000)::text, 7, '0'), 'import', now()
       from generate_series(1, ?) as i on conflict do nothing`,
    [accountId, ROWS],
  );
  await db.raw('analyze suppressions');
  process.stdout.write(`suppressed ${ROWS} numbers in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  rows.push(...(await measure(`${ROWS.toLocaleString('en')} numbers`)));
  // The same sends with no check at all (a key holding sms:send_transactional).
  key = transactionalKey;
  rows.push(...(await measure('not checked')));
  printTable('suppression check: latency in ms', rows);
} finally {
  await gateway.stop();
  await database.drop();
}
