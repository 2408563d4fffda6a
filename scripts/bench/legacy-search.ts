// Legacy search on a large history: fills SMS_ROWS (default 1,000,000) SMS rows for one account
// on PostgreSQL, then measures GET /sms?search=...&limit=100 for several kinds of search, against
// a baseline measured in the same run: the same page without a search. Target: p99 < 50 ms.
// total_records counts up to LEGACY_COUNT_CAP (1,000 by default; set it to compare with exact
// counts): the last column shows the last answer's, "+" where it is a lower bound.
import { loadConfig } from '../../src/config.ts';
import { freshDatabase, printTable, startBenchGateway, stats, timeSequential } from './support.ts';

const ROWS = Number(process.env.SMS_ROWS ?? 1_000_000);
const REQUESTS = Number(process.env.SEARCH_REQUESTS ?? 200);
const FILL_CHUNK = 100_000;

const database = await freshDatabase('search');
const { gateway, accountId, key, baseUrl } = await startBenchGateway(database.url, {
  legacyCountCap: loadConfig({ LEGACY_COUNT_CAP: process.env.LEGACY_COUNT_CAP }).legacyCountCap,
});
try {
  const db = gateway.services.db;
  const fillStarted = performance.now();
  // Messages from a small vocabulary with a serial number, phones spread over 10 million numbers,
  // statuses as a busy gateway has them (mostly delivered). In statements of FILL_CHUNK rows, each
  // well within the gateway's statement timeout on a loaded machine.
  for (let first = 1; first <= ROWS; first += FILL_CHUNK) {
    await db.raw(
      `insert into sms (id, object_id, account_id, device_id, device_named, phone, message, status, created_at, updated_at)
       select gen_random_uuid(),
              lpad(to_hex(i), 24, '0'),
              ?,
              null, false,
              '+7916' || lpad((i::bigint * 7919 % 10000000)::text, 7, '0'),
              (array['Your code is','Order','Delivery of parcel','Reminder: appointment','Invoice','Welcome to'])[1 + i % 6]
                || ' ' || (i * 31 % 1000000)::text
                || ' ' || (array['Moscow','Berlin','Paris','Lisbon','Oslo','Madrid','Rome','Vienna'])[1 + i % 8],
              (array['delivered','delivered','delivered','delivered','delivered','delivered','delivered','delivered','sent','failed_send'])[1 + i % 10],
              now() - (i || ' seconds')::interval,
              now() - (i || ' seconds')::interval
         from generate_series(?::int, ?::int) as i`,
      [accountId, first, Math.min(ROWS, first + FILL_CHUNK - 1)],
    );
  }
  // The triggers of migration 044 copied the text to sms_search in the same statements.
  await db.raw('analyze sms');
  await db.raw('analyze sms_search');
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  process.stdout.write(`filled ${ROWS} SMS rows (their text in sms_search, with trigram indexes) in ${fillSeconds.toFixed(1)} s\n`);

  // total_records as answered, "+" when X-Total-Records-Exact says it is a lower bound (LEGACY_COUNT_CAP).
  let total = '';
  const get = async (query: string) => {
    const response = await fetch(`${baseUrl}/sms?${query}`, { headers: { authorization: `Bearer ${key}` } });
    if (response.status !== 200) throw new Error(`GET /sms?${query} answered ${response.status}`);
    const body = (await response.json()) as { pagination: { total_records: number } };
    total = `${body.pagination.total_records}${response.headers.get('x-total-records-exact') === 'false' ? '+' : ''}`;
  };
  const scenarios: [string, (i: number) => string][] = [
    ['baseline: no search, limit 100', () => 'limit=100'],
    ['rare word (one SMS number)', (i) => `limit=100&search=${encodeURIComponent(String(100_000 + i))}`],
    ['phone fragment (7 digits)', (i) => `limit=100&search=${String(((i + 1) * 7919) % 10_000_000).padStart(7, '0')}`],
    ['common word ("Lisbon", 1 in 8)', () => 'limit=100&search=lisbon'],
    ['status label ("failed", 1 in 10)', () => 'limit=100&search=failed'],
    ['page 50 of a common word', () => 'limit=100&offset=50&search=berlin'],
  ];
  const rows = [];
  let baselineP99 = 0;
  for (const [name, query] of scenarios) {
    await get(query(0)); // warm
    const result = stats(await timeSequential(REQUESTS, (i) => get(query(i))));
    if (!baselineP99) baselineP99 = result.p99;
    rows.push({
      scenario: name,
      requests: result.count,
      'p50 ms': result.p50,
      'p99 ms': result.p99,
      'max ms': result.max,
      'p99 / baseline': (result.p99 / baselineP99).toFixed(2),
      total_records: total,
    });
  }
  printTable(`Legacy GET /sms?search=...&limit=100 on ${ROWS} rows (PostgreSQL, sequential requests; target p99 < 50 ms)`, rows);
} finally {
  await gateway.stop();
  await database.drop();
}
process.exit(0);
