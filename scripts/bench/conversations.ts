// Conversations on a large history: fills SMS_ROWS (default 500,000) sent SMS and a fifth as many
// received ones for one account, spread over NUMBERS (default 50,000) numbers, with the
// conversation rows the listeners keep, on PostgreSQL; then measures the inbox (first page, a page
// deep in by cursor, unread only) and one thread, sequential requests. What a page costs should
// not grow with the history: each is one index range plus a lookup of its newest messages by id.
import { freshDatabase, printTable, startBenchGateway, stats, timeSequential } from './support.ts';

const ROWS = Number(process.env.SMS_ROWS ?? 500_000);
const NUMBERS = Number(process.env.NUMBERS ?? 50_000);
const REQUESTS = Number(process.env.CONVERSATION_REQUESTS ?? 200);

const database = await freshDatabase('conversations');
const { gateway, accountId, key, baseUrl } = await startBenchGateway(database.url);
try {
  const db = gateway.services.db;
  const fillStarted = performance.now();
  const device = await gateway.services.devices.register(accountId, 'bench-phone');
  await db.raw(
    `insert into sms (id, object_id, account_id, device_id, device_named, phone, message, status, created_at, updated_at)
     select gen_random_uuid(), lpad(to_hex(i), 24, '0'), ?, ?, true,
            '+7916' || lpad((i % ?)::text, 7, '0'), 'Message ' || i, 'delivered',
            now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval
       from generate_series(1, ?) as i`,
    [accountId, device.device.id, NUMBERS, ROWS],
  );
  await db.raw(
    `insert into incoming_sms (id, account_id, device_id, device_message_id, phone, message, sim_slot, received_at, created_at)
     select gen_random_uuid(), ?, ?, 'm' || i, '+7916' || lpad((i * 7 % ?)::text, 7, '0'), 'Reply ' || i, 0,
            now() - (i || ' seconds')::interval + interval '500 milliseconds', now() - (i || ' seconds')::interval + interval '500 milliseconds'
       from generate_series(1, ?) as i`,
    [accountId, device.device.id, NUMBERS, Math.floor(ROWS / 5)],
  );
  // The rows the listeners would have kept: newest each way, unread = received count.
  await db.raw(
    `insert into conversations (id, account_id, phone, last_activity_at, last_sms_id, last_sms_at, last_incoming_id, last_incoming_at, unread_count)
     select gen_random_uuid(), ?, phone, greatest(o.at, i.at), o.id, o.at, i.id, i.at, coalesce(i.n, 0)
       from (select distinct on (phone) phone, id, created_at as at from sms where account_id = ? order by phone, created_at desc) o
       full join (select distinct on (phone) phone, id, created_at as at, count(*) over (partition by phone) as n
                    from incoming_sms where account_id = ? order by phone, created_at desc) i using (phone)`,
    [accountId, accountId, accountId],
  );
  await db.raw('analyze sms; analyze incoming_sms; analyze conversations');
  const conversations = Number((await db('conversations').count<{ count: string }[]>({ count: '*' }).first())?.count ?? 0);
  process.stdout.write(`filled ${ROWS} sent and ${Math.floor(ROWS / 5)} received SMS, ${conversations} conversations, in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s\n`);

  const get = async (path: string): Promise<{ data: { phone: string }[]; next_cursor: string | null }> => {
    const response = await fetch(`${baseUrl}/api/ext/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    return (await response.json()) as { data: { phone: string }[]; next_cursor: string | null };
  };
  // A cursor 100 pages deep: what a client paging far back sends.
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) cursor = (await get(`/conversations?limit=50${cursor ? `&cursor=${cursor}` : ''}`)).next_cursor;
  const busiest = (await get('/conversations?limit=1')).data[0]!.phone;

  const scenarios: [string, string][] = [
    ['inbox, first page (limit 50)', '/conversations?limit=50'],
    ['inbox, 100 pages deep (cursor)', `/conversations?limit=50&cursor=${cursor}`],
    ['inbox, unread only', '/conversations?limit=50&unread=true'],
    ['one thread (limit 50)', `/conversations/${encodeURIComponent(busiest)}/messages?limit=50`],
    ['one conversation', `/conversations/${encodeURIComponent(busiest)}`],
  ];
  const rows = [];
  for (const [name, path] of scenarios) {
    await get(path);
    const result = stats(await timeSequential(REQUESTS, () => get(path).then(() => undefined)));
    rows.push({ scenario: name, requests: result.count, 'p50 ms': result.p50, 'p99 ms': result.p99, 'max ms': result.max });
  }
  printTable(`Conversations on ${ROWS} sent + ${Math.floor(ROWS / 5)} received SMS, ${conversations} numbers (PostgreSQL, sequential requests)`, rows);
  const plan = await db.raw(
    `explain select * from conversations where account_id = ? order by last_activity_at desc, id desc limit 51`,
    [accountId],
  );
  process.stdout.write(`plan of the inbox page: ${(plan.rows as { 'QUERY PLAN': string }[]).map((row) => row['QUERY PLAN'].trim()).join(' / ')}\n`);
} finally {
  await gateway.stop();
  await database.drop();
}
process.exit(0);
