// Overload: what a client sees when SMS arrive at twice the rate the gateway can sustain.
// The whole path runs for every SMS: phones report processing/sent/delivered at once, and a
// webhook receives sms.status_changed for each report (3 reports and 3 webhooks per SMS).
//
// 1. Sustainable rate: closed loop, 64 connections, OVERLOAD_PROBE_SECONDS (default 15), with
//    admission control off: the most SMS per second the gateway accepts when saturated.
// 2. Twice that rate, open loop (1,000 connections, a fixed overall rate, from a worker thread) for OVERLOAD_SECONDS
//    (default 20), twice: with admission control as configured by default, and with it turned
//    off (the baseline, measured in the same run on a fresh gateway).
//    Each run first warms its fresh gateway up for 5 s at half the sustainable rate.
// 3. Drain: every accepted SMS must reach `delivered`; none may be missing.
// Target (with admission control): p99 of accepted POSTs under 500 ms, refusals (503) answered
// in under 50 ms, no SMS lost.
import autocannon from 'autocannon';
import knexModule from 'knex';
import { request } from 'undici';
import { Worker } from 'node:worker_threads';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { Receiver } from '../../test/support/receiver.ts';
import { freshDatabase, liftDeviceLimits, METRICS_SCRAPE_HEADERS, prepareTenant, printTable, spawnGateway, stats } from './support.ts';

const PROBE_SECONDS = Number(process.env.OVERLOAD_PROBE_SECONDS ?? 15);
const LOAD_SECONDS = Number(process.env.OVERLOAD_SECONDS ?? 20);
const WARMUP_SECONDS = 5;
/** OVERLOAD_RATE: offer this rate instead of twice a probed one (to compare tunings quickly). */
const FIXED_RATE = Number(process.env.OVERLOAD_RATE ?? 0);
/**
 * Clients at once. Enough that the clients never bound the requests in flight themselves (256
 * would: at 1,500/s that is a queue of 170 ms at most), so without admission control the queue
 * inside the gateway can grow as it would behind many real clients.
 */
const OPEN_LOOP_CONNECTIONS = 1_000;
const ADMISSION_OFF = { HTTP_MAX_IN_FLIGHT: '100000', HTTP_TARGET_LATENCY: '0', MAX_EVENT_LOOP_DELAY: '0' };
/** Settings for the admission-control run, to compare tunings: "MAX_EVENT_LOOP_DELAY=50,HTTP_TARGET_LATENCY=100". */
const ADMISSION_ENV: Record<string, string> = Object.fromEntries(
  (process.env.OVERLOAD_GATEWAY_ENV ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => pair.split('=') as [string, string]),
);
const DEVICES = 8;
const DRAIN_TIMEOUT_MS = 180_000;
const body = JSON.stringify({ phone: '+79161234567', message: 'Overload benchmark: your code is 123456' });

/** What scripts/bench/open-loop-worker.mjs takes and answers. */
interface OpenLoopJob {
  request: { url: string; method: 'POST'; headers: Record<string, string>; body: string };
  rate: number;
  seconds: number;
  connections: number;
}
interface OpenLoopResult {
  byStatus: Record<string, number[]>;
  errors: number;
}

interface Run {
  label: string;
  rate: number;
  accepted: number[];
  refused: number[];
  other: number;
  errors: number;
  lost: number;
  drainSeconds: number;
  /** Refusals by reason, from the gateway's metrics. */
  reasons: string;
}

export async function overload(): Promise<Record<string, string | number>[]> {
  const sustainable = FIXED_RATE ? FIXED_RATE / 2 : await onFreshGateway(ADMISSION_OFF, async (target) => {
    const probe = await autocannon({ ...target.request, connections: 64, duration: PROBE_SECONDS });
    const drained = await target.drain();
    process.stderr.write(`overload: probe accepted ${Math.round(probe.requests.average)} SMS/s; backlog drained in ${drained.seconds} s\n`);
    return Math.round(probe.requests.average);
  });
  const rate = 2 * sustainable;
  process.stderr.write(`overload: sustainable ${sustainable} SMS/s; loading at ${rate} SMS/s\n`);

  const runs: Run[] = [];
  for (const [label, env] of [
    [process.env.OVERLOAD_GATEWAY_ENV ? `admission control (${process.env.OVERLOAD_GATEWAY_ENV})` : 'admission control (defaults)', ADMISSION_ENV],
    ['baseline: admission control off', ADMISSION_OFF],
  ] as const) {
    if (label.startsWith('baseline') && process.env.OVERLOAD_BASELINE === '0') continue;
    runs.push(
      await onFreshGateway(env, async (target) => {
        // Warm up (connections, JIT, caches) at half the sustainable rate, drained, then measure.
        await openLoop('warm-up', Math.max(1, Math.round(sustainable / 2)), target, WARMUP_SECONDS);
        return openLoop(label, rate, target, LOAD_SECONDS);
      }),
    );
  }
  return runs.map((run) => {
    const accepted = stats(run.accepted);
    const refused = stats(run.refused);
    return {
      scenario: run.label,
      'offered SMS/s': run.rate,
      'accepted/s': Math.round(run.accepted.length / LOAD_SECONDS),
      'accepted p50 ms': accepted.p50,
      'accepted p99 ms': accepted.p99,
      '503 count': run.refused.length,
      '503 p99 ms': refused.p99,
      'other/errors': run.other + run.errors,
      lost: run.lost,
      'drain s': run.drainSeconds,
      'refused by': run.reasons || '-',
    };
  });
}

interface Target {
  request: autocannon.Options;
  /** The refusal counters so far, "in_flight=12 event_loop=3". */
  refusals: () => Promise<string>;
  /** SMS created before this run (a warm-up's). */
  before: number;
  /** Waits until every SMS created so far is final; returns how many exist and the seconds it took. */
  drain: () => Promise<{ total: number; seconds: number }>;
}

async function onFreshGateway<T>(env: Record<string, string>, work: (target: Target) => Promise<T>): Promise<T> {
  const receiver = new Receiver();
  await receiver.start();
  const database = await freshDatabase('overload');
  const tenant = await prepareTenant(database.url, DEVICES);
  const gateway = await spawnGateway(database.url, { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', ...env });
  const db = knexModule.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 1 } });
  const phones = tenant.devices.map(
    (device) => new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`, deviceId: device.id, token: device.token }),
  );
  try {
    const api = `http://127.0.0.1:${gateway.port}/api/ext/v1`;
    await liftDeviceLimits(`http://127.0.0.1:${gateway.port}`, tenant.key, tenant.devices.map((device) => device.id));
    const created = await request(`${api}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, events: ['sms.status_changed'] }),
    });
    if (created.statusCode !== 201) throw new Error(`webhook not created: ${created.statusCode} ${await created.body.text()}`);
    await created.body.dump();
    await Promise.all(phones.map((phone) => phone.connect()));
    return await work({
      before: 0,
      refusals: async () => {
        const metrics = await (await request(`http://127.0.0.1:${gateway.port}/metrics`, { headers: METRICS_SCRAPE_HEADERS })).body.text();
        return [...metrics.matchAll(/^http_requests_refused_total\{reason="(\w+)"\} (\d+)/gm)].map(([, reason, count]) => `${reason}=${count}`).join(' ');
      },
      request: { url: `${api}/sms`, method: 'POST', headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' }, body },
      drain: async () => {
        const started = performance.now();
        for (;;) {
          const [row] = (await db('sms').select(
            db.raw('count(*)::int as total'),
            db.raw(`count(*) filter (where status not in ('delivered', 'undelivered', 'failed_send', 'failed_delivery'))::int as open`),
          )) as { total: number; open: number }[];
          if (performance.now() - started > 5_000 && Math.round(performance.now() - started) % 5_000 < 250) {
            process.stderr.write(`overload: draining, ${row!.open} of ${row!.total} SMS still open\n`);
          }
          if (row!.open === 0) return { total: row!.total, seconds: Math.round((performance.now() - started) / 100) / 10 };
          if (performance.now() - started > DRAIN_TIMEOUT_MS) throw new Error(`${row!.open} SMS still open after ${DRAIN_TIMEOUT_MS / 1000} s`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      },
    });
  } finally {
    await Promise.all(phones.map((phone) => phone.kill()));
    await gateway.stop();
    await db.destroy();
    await database.drop();
    await receiver.stop();
  }
}

async function openLoop(label: string, rate: number, target: Target, seconds: number): Promise<Run> {
  const run: Run = { label, rate, accepted: [], refused: [], other: 0, errors: 0, lost: 0, drainSeconds: 0, reasons: '' };
  process.stderr.write(`overload: ${label}: ${rate} SMS/s for ${seconds} s\n`);
  const job: OpenLoopJob = { request: target.request as OpenLoopJob['request'], rate, seconds, connections: OPEN_LOOP_CONNECTIONS };
  const worker = new Worker(new URL('./open-loop-worker.mjs', import.meta.url), { workerData: job });
  const result = await new Promise<OpenLoopResult>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  for (const [status, latencies] of Object.entries(result.byStatus)) {
    if (status === '201') run.accepted = latencies;
    else if (status === '503') run.refused = latencies;
    else run.other += latencies.length;
  }
  run.errors = result.errors;
  run.reasons = await target.refusals();
  const drained = await target.drain();
  run.drainSeconds = drained.seconds;
  // Every 201 is an SMS in the database (the table holds nothing else in this run), and every one delivered.
  run.lost = Math.max(0, run.accepted.length - (drained.total - target.before));
  target.before = drained.total;
  return run;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(
    `Overload: twice the sustainable rate for ${LOAD_SECONDS} s (target: accepted p99 < 500 ms, 503 p99 < 50 ms, none lost)`,
    await overload(),
  );
  process.exit(0);
}
