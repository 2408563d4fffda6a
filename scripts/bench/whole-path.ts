// The whole path as a user with a burst loads it: N SMS posted at a fixed rate, phones answering
// every task at once (processing, sent, delivered: three status events per SMS), and one or three
// webhooks subscribed to sms.status_changed. What one stage alone never shows (a claim that costs
// in proportion to the backlog, a query run once per report) shows here.
//
// Each run is a fresh gateway (`sms-gateway serve`, its own process) on a fresh PostgreSQL
// database, 4 simulated phones with pacing lifted, and a local receiver per webhook. It prints:
// - CPU per SMS of the gateway and of the run's PostgreSQL backends (from /proc), and the ratio of
//   a bare Koa echo's CPU per request (measured in the same run) to the whole path's CPU per SMS;
// - statements and transactions per SMS (pg_stat_statements when the server preloads it; the
//   statements that took the most time are printed below the table);
// - the time from the last accepted POST until the last webhook was delivered, and the rate at
//   which the webhook backlog left at the last accept drained.
//
// A "held" run switches its webhooks off for the burst (their deliveries are still written) and on
// once every SMS is delivered: how fast a backlog of ordered deliveries (three per SMS) drains.
//
// WHOLE_PATH_RUNS: "<sms>x<webhooks>[held]" (default "3000x1,20000x1,3000x3,20000x1held"); WHOLE_PATH_RATE: SMS
// posted a second (default 300); BENCH_GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=.tmp/prof"
// profiles the gateway; WHOLE_PATH_EXPLAIN_MS=20 logs the plans of slower statements to PostgreSQL's
// server log; WHOLE_PATH_STATEMENT_CPU=1 logs every statement there with the CPU it took.
import knexModule from 'knex';
import { request } from 'undici';
import { Worker } from 'node:worker_threads';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { Receiver } from '../../test/support/receiver.ts';
import { CpuOfProcesses, freshDatabase, liftDeviceLimits, prepareTenant, printTable, processCpuMs, ratio, spawnGateway, spawnReady, stats, ADMIN_URL } from './support.ts';

const RATE = positive('WHOLE_PATH_RATE', 300);
const RUNS = (process.env.WHOLE_PATH_RUNS ?? '3000x1,20000x1,3000x3,20000x1held').split(',').map((run) => {
  const match = /^(\d+)x(\d+)(held)?$/.exec(run);
  const [sms, webhooks] = [Number(match?.[1]), Number(match?.[2])];
  if (!match || sms < 1 || webhooks < 1 || webhooks > 10) {
    throw new Error(`WHOLE_PATH_RUNS: "${run}" is not "<sms>x<webhooks>[held]" (webhooks 1-10)`);
  }
  return { sms, webhooks, held: match[3] !== undefined };
});
/** WHOLE_PATH_STATEMENT_CPU=1: log every statement of the run's database with the CPU it took (log_statement_stats). */
const STATEMENT_CPU = process.env.WHOLE_PATH_STATEMENT_CPU === '1';
/** WHOLE_PATH_EXPLAIN_MS: log the plans of statements slower than this to PostgreSQL's log (auto_explain). */
const AUTO_EXPLAIN_MS = process.env.WHOLE_PATH_EXPLAIN_MS === undefined ? undefined : positive('WHOLE_PATH_EXPLAIN_MS', 1);
const DEVICES = 4;
const EVENTS_PER_SMS = 3;
/** Longest wait for the last webhook after the last accept. */
const DRAIN_TIMEOUT_MS = 300_000;
const CONNECTIONS = 64;
const body = JSON.stringify({ phone: '+79161234567', message: 'Whole path benchmark: your code is 123456' });

interface RunFigures {
  label: string;
  accepted: number;
  postP99: number;
  gatewayCpuPerSms: number;
  postgresCpuPerSms: number;
  statementsPerSms: number | undefined;
  transactionsPerSms: number;
  lastAcceptToLastWebhookS: number;
  backlogAtLastAccept: number;
  backlogDrainPerS: number;
  topStatements: string[];
  /** The indexes of the tables the path writes, with how often the run read each. */
  indexes: string[];
}

async function koaCpuPerRequest(count: number): Promise<number> {
  const baseline = await spawnReady(['scripts/bench/baseline-server.ts'], {}, (line) => typeof line.port === 'number');
  try {
    const url = `http://127.0.0.1:${baseline.ready.port as number}/api/ext/v1/sms`;
    const before = processCpuMs(baseline.child.pid!)!;
    await openLoop(url, {}, count);
    return (processCpuMs(baseline.child.pid!)! - before) / count;
  } finally {
    await baseline.stop();
  }
}

/** Posts `count` requests at RATE from a worker thread; resolves when the last one was answered. */
async function openLoop(url: string, headers: Record<string, string>, count: number): Promise<{ byStatus: Record<string, number[]>; errors: number }> {
  const worker = new Worker(new URL('./open-loop-worker.mjs', import.meta.url), {
    workerData: {
      request: { url, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body },
      rate: RATE,
      amount: count,
      connections: CONNECTIONS,
    },
  });
  try {
    return await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

async function wholePath(sms: number, webhooks: number, held: boolean): Promise<RunFigures> {
  const label = `${sms.toLocaleString('en')} SMS, ${webhooks} webhook${webhooks > 1 ? 's' : ''}${held ? ', held then drained' : ''}`;
  const database = await freshDatabase('whole_path');
  const dbName = new URL(database.url).pathname.slice(1);
  if (AUTO_EXPLAIN_MS !== undefined) await explainSlowStatements(dbName, AUTO_EXPLAIN_MS);
  if (STATEMENT_CPU) await logStatementCpu(dbName);
  const receivers = await Promise.all(Array.from({ length: webhooks }, async () => {
    const receiver = new Receiver();
    await receiver.start();
    return receiver;
  }));
  const tenant = await prepareTenant(database.url, DEVICES);
  // Admission control off: every SMS of the burst is to take the whole path, none refused with 503.
  const gateway = await spawnGateway(database.url, {
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    HTTP_MAX_IN_FLIGHT: '100000',
    HTTP_TARGET_LATENCY: '0',
    MAX_EVENT_LOOP_DELAY: '0',
  });
  const db = knexModule.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 1 } });
  const admin = knexModule.knex({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  const phones = tenant.devices.map(
    (device) => new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`, deviceId: device.id, token: device.token }),
  );
  try {
    const baseUrl = `http://127.0.0.1:${gateway.port}`;
    await liftDeviceLimits(baseUrl, tenant.key, tenant.devices.map((device) => device.id));
    const webhookIds: string[] = [];
    for (const receiver of receivers) {
      const created = await request(`${baseUrl}/api/ext/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, events: ['sms.status_changed'] }),
      });
      if (created.statusCode !== 201) throw new Error(`webhook not created: ${created.statusCode} ${await created.body.text()}`);
      webhookIds.push(((await created.body.json()) as { webhook: { id: string } }).webhook.id);
    }
    const switchWebhooks = async (enabled: boolean) => {
      for (const id of webhookIds) {
        const changed = await request(`${baseUrl}/api/ext/v1/webhooks/${id}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ enabled }),
        });
        if (changed.statusCode !== 200) throw new Error(`webhook not switched: ${changed.statusCode} ${await changed.body.text()}`);
        await changed.body.dump();
      }
    };
    if (held) await switchWebhooks(false);
    await Promise.all(phones.map((phone) => phone.connect()));

    // Delivered webhooks, counted once per delivery id (a retry is not a second delivery).
    const expected = sms * EVENTS_PER_SMS * webhooks;
    const deliveredIds = new Set<string>();
    let lastDeliveredAt = 0;
    let allDelivered: () => void = () => {};
    const done = new Promise<void>((resolve) => (allDelivered = resolve));
    for (const receiver of receivers) {
      receiver.on('request', (received) => {
        if (received.status >= 300) return;
        deliveredIds.add(String(received.headers['webhook-id']));
        lastDeliveredAt = performance.now();
        if (deliveredIds.size >= expected) allDelivered();
      });
    }

    const statements = await statementCounter(admin, dbName);
    const transactionsBefore = await transactions(admin, dbName);
    const postgres = new CpuOfProcesses('postgres', dbName, 200);
    const gatewayBefore = processCpuMs(gateway.child.pid!)!;
    const postgresBefore = postgres.totalMs();

    const posted = await openLoop(`${baseUrl}/api/ext/v1/sms`, { authorization: `Bearer ${tenant.key}` }, sms);
    if (held) {
      await everySmsDelivered(db);
      await switchWebhooks(true);
    }
    // Held: from the moment the webhooks are switched back on.
    const lastAcceptAt = performance.now();
    const backlogAtLastAccept = expected - deliveredIds.size;
    const accepted = posted.byStatus['201'] ?? [];
    if (accepted.length !== sms) throw new Error(`${accepted.length} of ${sms} POSTs accepted (${JSON.stringify(Object.keys(posted.byStatus))}, ${posted.errors} errors)`);
    const timeout = setTimeout(() => allDelivered(), DRAIN_TIMEOUT_MS);
    await done;
    clearTimeout(timeout);
    if (deliveredIds.size < expected) throw new Error(`${deliveredIds.size} of ${expected} webhooks delivered ${DRAIN_TIMEOUT_MS / 1000} s after the last accept`);
    const firstDeliveredSpan = (lastDeliveredAt - lastAcceptAt) / 1000;

    const gatewayCpu = processCpuMs(gateway.child.pid!)! - gatewayBefore;
    const postgresCpu = postgres.totalMs() - postgresBefore;
    postgres.stop();
    const [open] = (await db('sms').whereNotIn('status', ['delivered']).count({ n: '*' })) as { n: string }[];
    if (Number(open!.n) > 0) throw new Error(`${open!.n} SMS not delivered`);
    const counted = await statements.read();
    const indexes = await indexUse(db);
    // Our own two counting queries ran on another database: nothing to subtract.
    const transactionsRun = (await transactions(admin, dbName)) - transactionsBefore;
    return {
      label,
      accepted: accepted.length,
      postP99: stats(accepted).p99,
      gatewayCpuPerSms: gatewayCpu / sms,
      postgresCpuPerSms: postgresCpu / sms,
      statementsPerSms: counted ? counted.calls / sms : undefined,
      transactionsPerSms: transactionsRun / sms,
      lastAcceptToLastWebhookS: Math.max(0, firstDeliveredSpan),
      backlogAtLastAccept,
      backlogDrainPerS: firstDeliveredSpan > 0 ? backlogAtLastAccept / firstDeliveredSpan : Infinity,
      topStatements: counted?.top ?? [],
      indexes,
    };
  } finally {
    await Promise.all(phones.map((phone) => phone.kill()));
    await gateway.stop();
    await db.destroy();
    await admin.destroy();
    await database.drop();
    await Promise.all(receivers.map((receiver) => receiver.stop()));
  }
}

async function everySmsDelivered(db: knexModule.Knex): Promise<void> {
  const until = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const [open] = (await db('sms').whereNot('status', 'delivered').count({ n: '*' })) as { n: string }[];
    if (Number(open!.n) === 0) return;
    if (Date.now() > until) throw new Error(`${open!.n} SMS not delivered`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The indexes of the tables the path writes most, with the scans the run made of each: every
 * index costs each insert (and each update that is not HOT), so one the path never reads is paid
 * for by every SMS. (Whether any other query reads it is for the reader to check.)
 */
async function indexUse(db: knexModule.Knex): Promise<string[]> {
  await db.raw('select pg_stat_clear_snapshot()');
  const { rows } = await db.raw<{ rows: { relname: string; indexrelname: string; idx_scan: string; bytes: string }[] }>(
    `select relname, indexrelname, idx_scan, pg_relation_size(indexrelid) as bytes from pg_stat_user_indexes
      where relname in ('sms', 'sms_status_history', 'sms_attempts', 'sms_search', 'webhook_deliveries', 'device_dispatches', 'conversations')
      order by relname, idx_scan, indexrelname`,
  );
  return rows.map((row) => `${row.relname.padEnd(20)} ${row.indexrelname.padEnd(48)} ${String(row.idx_scan).padStart(8)} scans  ${(Number(row.bytes) / 1024).toFixed(0).padStart(6)} kB`);
}

async function transactions(admin: knexModule.Knex, dbName: string): Promise<number> {
  // The statistics collector publishes with a delay: ask for a fresh snapshot first.
  await admin.raw('select pg_stat_clear_snapshot()');
  const { rows } = await admin.raw<{ rows: { n: string }[] }>(`select xact_commit + xact_rollback as n from pg_stat_database where datname = ?`, [dbName]);
  return Number(rows[0]?.n ?? 0);
}

/** Counts the statements run on `dbName` from now on, when the server has pg_stat_statements loaded. */
async function statementCounter(admin: knexModule.Knex, dbName: string): Promise<{ read: () => Promise<{ calls: number; top: string[] } | undefined> }> {
  try {
    await admin.raw('create extension if not exists pg_stat_statements');
    await admin.raw('select pg_stat_statements_reset()');
  } catch {
    process.stderr.write('whole-path: pg_stat_statements is not loaded (shared_preload_libraries): statements per SMS not counted\n');
    return { read: async () => undefined };
  }
  return {
    read: async () => {
      const { rows } = await admin.raw<{ rows: { calls: string; total_ms: number; rows: string; query: string }[] }>(
        `select s.calls, s.total_exec_time as total_ms, s.rows, s.query from pg_stat_statements s
           join pg_database d on d.oid = s.dbid where d.datname = ? order by s.total_exec_time desc`,
        [dbName],
      );
      const calls = rows.reduce((sum, row) => sum + Number(row.calls), 0);
      const total = rows.reduce((sum, row) => sum + row.total_ms, 0);
      const line = (row: (typeof rows)[number]) =>
        `${((100 * row.total_ms) / total).toFixed(1).padStart(5)}%  ${String(row.calls).padStart(7)} calls  ${(row.total_ms / Number(row.calls)).toFixed(3)} ms/call  ${(Number(row.rows) / Number(row.calls)).toFixed(1)} rows/call  ${row.query.replace(/\s+/g, ' ').slice(0, 150)}`;
      const byCalls = [...rows].sort((a, b) => Number(b.calls) - Number(a.calls));
      const top = [...rows.slice(0, 8).map(line), '  by calls:', ...byCalls.slice(0, 12).map(line)];
      return { calls, top };
    },
  };
}

/** Has PostgreSQL log the plan (with actual rows) of every statement on `dbName` slower than `ms`, to its server log. */
async function explainSlowStatements(dbName: string, ms: number): Promise<void> {
  const admin = knexModule.knex({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`alter database ${dbName} set session_preload_libraries = 'auto_explain'`);
    await admin.raw(`alter database ${dbName} set auto_explain.log_min_duration = ${Math.round(ms)}`);
    await admin.raw(`alter database ${dbName} set auto_explain.log_analyze = on`);
    await admin.raw(`alter database ${dbName} set auto_explain.log_buffers = on`);
  } finally {
    await admin.destroy();
  }
}

/**
 * Has PostgreSQL log every statement on `dbName` with its duration and, after each phase (parse,
 * bind with its planning, execute), the CPU the backend used for it: what a statement costs
 * without the lock waits its duration includes. Set on the run's database alone, which is dropped
 * after the run.
 */
async function logStatementCpu(dbName: string): Promise<void> {
  const admin = knexModule.knex({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`alter database ${dbName} set log_min_duration_statement = 0`);
    await admin.raw(`alter database ${dbName} set log_statement_stats = on`);
  } finally {
    await admin.destroy();
  }
}

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const koa = await koaCpuPerRequest(3_000);
  process.stderr.write(`whole-path: bare Koa echo ${koa.toFixed(3)} ms CPU per request at ${RATE}/s\n`);
  const rows: Record<string, string | number>[] = [];
  const details: string[] = [];
  for (const { sms, webhooks, held } of RUNS) {
    process.stderr.write(`whole-path: ${sms} SMS at ${RATE}/s, ${webhooks} webhook(s)${held ? ', held' : ''}\n`);
    const run = await wholePath(sms, webhooks, held);
    const wholeCpu = run.gatewayCpuPerSms + run.postgresCpuPerSms;
    rows.push({
      run: run.label,
      'POST p99 ms': run.postP99,
      'gateway CPU ms/SMS': run.gatewayCpuPerSms.toFixed(2),
      'PostgreSQL CPU ms/SMS': run.postgresCpuPerSms.toFixed(2),
      'Koa echo / whole path': ratio(koa, wholeCpu),
      'statements/SMS': run.statementsPerSms?.toFixed(1) ?? 'n/a',
      'transactions/SMS': run.transactionsPerSms.toFixed(1),
      'backlog at last accept': run.backlogAtLastAccept,
      'last accept (held: switched on) -> last webhook s': run.lastAcceptToLastWebhookS.toFixed(1),
      'backlog drained/s': Number.isFinite(run.backlogDrainPerS) ? Math.round(run.backlogDrainPerS) : '-',
    });
    details.push(`${run.label}: the statements that took the most time in PostgreSQL\n${run.topStatements.join('\n') || '(pg_stat_statements not loaded)'}`);
    details.push(`${run.label}: the indexes of the tables the path writes, and the run's scans of each\n${run.indexes.join('\n')}`);
  }
  process.stdout.write(`\n${details.join('\n\n')}\n`);
  printTable(
    `Whole path at ${RATE} SMS/s, 4 phones answering at once, bare Koa echo ${koa.toFixed(3)} ms CPU/request (targets: PostgreSQL <= 1.3 ms/SMS, ratio >= 0.30, last webhook <= 15 s after the last accept, drain >= 2,000/s)`,
    rows,
  );
  process.exit(0);
}
