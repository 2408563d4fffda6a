// The whole path through an upstream, as a user with routes loads it: a spawned gateway
// (`sms-gateway serve`, its own process, a fresh PostgreSQL database) whose account has no phone
// online and routes `[phones, SMSC]`, so that every SMS posted leaves through one SMPP bind
// (window 10) to an SMSC in a child process (the smpp package's server, the one of
// scripts/bench/smpp-upstream.ts) that answers each submit_sm at once and sends its DELIVRD
// receipt right after. SMS are posted open-loop at ROUTE_BENCH_RATE a second (default 200) for
// ROUTE_BENCH_SECONDS (default 20); the run waits for the last delivered (at most 60 s more) and
// stops by itself.
//
// Printed: SMS accepted and delivered a second, the time from the SMS stored to its `sent` (the
// router took it, the link submitted it, the SMSC answered) and to its `delivered` (the receipt
// applied), p50 / p99 / max from the SMS's status history, and the gateway's and PostgreSQL's CPU
// per SMS.
//
//   npx tsx scripts/bench/upstream-route.ts        ROUTE_BENCH_SECONDS=5 for a quick look
import knexModule from 'knex';
import { request } from 'undici';
import { fileURLToPath } from 'node:url';
import { CpuOfProcesses, freshDatabase, positiveIntegerSetting, prepareTenant, printTable, processCpuMs, spawnGateway, spawnReady, stats } from './support.ts';

const RATE = positiveIntegerSetting('ROUTE_BENCH_RATE', 200);
const SECONDS = positiveIntegerSetting('ROUTE_BENCH_SECONDS', 20);
const DRAIN_MS = 60_000;
const SMSC_SCRIPT = fileURLToPath(new URL('./smpp-upstream.ts', import.meta.url));
const body = JSON.stringify({ phone: '+447911123456', message: 'Your code is 482913. It expires in 10 minutes.' });

const database = await freshDatabase('upstream_route');
const tenant = await prepareTenant(database.url, 0);
const smsc = await spawnReady([SMSC_SCRIPT, 'smsc'], {}, (line) => line.ready === true, 30_000);
const gateway = await spawnGateway(database.url, { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', HTTP_MAX_IN_FLIGHT: '100000', HTTP_TARGET_LATENCY: '0', MAX_EVENT_LOOP_DELAY: '0' });
const db = knexModule.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 1 } });
const baseUrl = `http://127.0.0.1:${gateway.port}/api/ext/v1`;
const headers = { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' };

async function call(method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown): Promise<{ status: number; body: any }> {
  const answer = await request(baseUrl + path, { method, headers, ...(payload === undefined ? {} : { body: JSON.stringify(payload) }) });
  return { status: answer.statusCode, body: await answer.body.json().catch(() => undefined) };
}

try {
  const created = await call('POST', '/upstreams', {
    name: 'bench-smsc',
    kind: 'smpp',
    host: '127.0.0.1',
    port: smsc.ready.port,
    system_id: 'bench',
    password: 'bench',
    window_size: 10,
    throughput_per_second: 5000,
  });
  if (created.status !== 201) throw new Error(`upstream not created: ${created.status} ${JSON.stringify(created.body)}`);
  const upstreamId = created.body.id as string;
  for (const deadline = Date.now() + 20_000; (await call('GET', `/upstreams/${upstreamId}`)).body.link.state !== 'ready'; ) {
    if (Date.now() > deadline) throw new Error('the upstream link did not bind within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const routed = await call('PUT', '/routes', { routes: [{ target: 'phones' }, { target: upstreamId }] });
  if (routed.status !== 200) throw new Error(`routes not set: ${routed.status}`);

  const total = RATE * SECONDS;
  const postgres = new CpuOfProcesses('postgres', database.url.split('/').pop()!, 200);
  const gatewayBefore = processCpuMs(gateway.child.pid!)!;
  const postgresBefore = postgres.totalMs();
  const started = performance.now();
  let refused = 0;
  const posts: Promise<void>[] = [];
  // Open loop: each SMS is posted when its time comes, whatever the answers before it.
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    posts.push(
      request(`${baseUrl}/sms`, { method: 'POST', headers, body }).then(async (answer) => {
        await answer.body.dump();
        if (answer.statusCode !== 201) refused++;
      }),
    );
  }
  await Promise.all(posts);
  const postSeconds = (performance.now() - started) / 1000;
  let delivered = 0;
  for (const deadline = Date.now() + DRAIN_MS; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
    delivered = Number(((await db('sms').where({ status: 'delivered' }).count({ n: '*' })) as { n: string }[])[0]!.n);
    if (delivered >= total - refused) break;
  }
  const allSeconds = (performance.now() - started) / 1000;
  const gatewayCpu = processCpuMs(gateway.child.pid!)! - gatewayBefore;
  const postgresCpu = postgres.totalMs() - postgresBefore;
  postgres.stop();

  const { rows } = await db.raw<{ rows: { to_sent: number; to_delivered: number }[] }>(
    `select extract(epoch from (h1.created_at - s.created_at)) * 1000 as to_sent,
            extract(epoch from (h2.created_at - s.created_at)) * 1000 as to_delivered
       from sms s
       join sms_status_history h1 on h1.sms_id = s.id and h1.status = 'sent'
       join sms_status_history h2 on h2.sms_id = s.id and h2.status = 'delivered'`,
  );
  const toSent = stats(rows.map((row) => Number(row.to_sent)));
  const toDelivered = stats(rows.map((row) => Number(row.to_delivered)));
  const usage = (await call('GET', `/upstreams/${upstreamId}`)).body.month;
  printTable(`Upstream route: ${total} SMS at ${RATE}/s through one SMPP bind, window 10`, [
    {
      posted: total,
      refused,
      'accepted/s': (total - refused) / postSeconds,
      delivered,
      'delivered/s (first POST to last delivered)': delivered / allSeconds,
      'to sent p50 / p99 / max ms': `${toSent.p50.toFixed(1)} / ${toSent.p99.toFixed(1)} / ${toSent.max.toFixed(1)}`,
      'to delivered p50 / p99 / max ms': `${toDelivered.p50.toFixed(1)} / ${toDelivered.p99.toFixed(1)} / ${toDelivered.max.toFixed(1)}`,
      'gateway CPU ms/SMS': (gatewayCpu / total).toFixed(2),
      'PostgreSQL CPU ms/SMS': (postgresCpu / total).toFixed(2),
      'segments counted': usage.segments,
    },
  ]);
  if (delivered < total - refused) throw new Error(`${delivered} of ${total - refused} delivered ${DRAIN_MS / 1000} s after the last POST`);
} finally {
  await db.destroy();
  await gateway.stop();
  await smsc.stop();
  await database.drop();
}
