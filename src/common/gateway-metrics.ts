// The gateway's own figures on /metrics, beside the counts its parts keep themselves: SMS by
// status transition, the queues (SMS waiting, tasks in flight per device, the webhook backlog)
// and the database pool. Queue depths are read from the database when Prometheus scrapes, not
// tracked in memory: the rows are the queue (architecture decision 1), so the figures stay
// right across restarts and with several gateway processes on one database.
import type { Knex } from 'knex';
import type { Logger } from './logger.ts';
import { LATENCY_BUCKETS, type Metrics, type Sample } from './metrics.ts';
import type { Database } from '../storage/database.ts';
import type { DomainEvents } from '../events/domain-events.ts';

export const SMS_TRANSITIONS = 'sms_status_transitions_total';
const SMS_TRANSITIONS_HELP = 'SMS status changes, by the status left and the status reached';
export const WEBHOOK_DELIVERY_DURATION = 'webhook_delivery_duration_seconds';
export const WEBHOOK_DELIVERY_DURATION_HELP = 'time from sending a webhook delivery to its answer (seconds), by outcome';

/**
 * Devices named in sms_in_flight, the busiest first. A fleet of thousands would otherwise add a
 * series per phone to every scrape; the rest are summed under device="other".
 */
export const IN_FLIGHT_DEVICE_SERIES = 50;

/**
 * The one event metered, in only the terms it is counted by: the shared layer knows no module,
 * and the gateway's seam, which carries delivery's full status change, is handed in.
 */
export interface StatusTransitions {
  'sms.status_changed': readonly { from: string; path: readonly string[] }[];
}

export interface MeteredParts {
  db: Database;
  events: DomainEvents<StatusTransitions>;
  metrics: Metrics;
}

export function meterGateway({ db, events, metrics }: MeteredParts, logger: Logger): void {
  const failed = (what: string) => (error: unknown) => logger.warn({ err: error }, `metrics: reading ${what} failed`);

  metrics.declareCounter(SMS_TRANSITIONS, SMS_TRANSITIONS_HELP, ['from', 'to']);
  // A report that skips steps records the implied ones too: each step counts as its own transition.
  events.on('sms.status_changed', (changes) => {
    for (const change of changes) {
      let from = change.from;
      for (const to of change.path) {
        metrics.count(SMS_TRANSITIONS, SMS_TRANSITIONS_HELP, { from, to });
        from = to;
      }
    }
  });

  metrics.sampledGauge(
    'sms_waiting',
    'SMS waiting for a phone to take them: queue="pool" (any device of the account) or "device" (the device the client named)',
    ['queue'],
    () => waitingSms(db),
    failed('sms_waiting'),
  );
  metrics.sampledGauge(
    'sms_in_flight',
    `tasks handed to a device and not yet sent or failed, per device (the ${IN_FLIGHT_DEVICE_SERIES} busiest; the rest as device="other")`,
    ['device'],
    () => inFlightSms(db),
    failed('sms_in_flight'),
  );
  metrics.sampledGauge(
    'webhook_backlog',
    'webhook deliveries not yet delivered nor given up: state="due" (to send now) or "scheduled" (a retry or a lease later)',
    ['state'],
    () => webhookBacklog(db),
    failed('webhook_backlog'),
  );
  metrics.sampledGauge(
    'webhook_backlog_oldest_due_seconds',
    'how long the longest-waiting due webhook delivery has been due (0 when none is)',
    [],
    () => oldestDueWebhook(db),
    failed('webhook_backlog_oldest_due_seconds'),
  );
  metrics.declareHistogram(WEBHOOK_DELIVERY_DURATION, WEBHOOK_DELIVERY_DURATION_HELP, ['outcome'], LATENCY_BUCKETS);

  metrics.sampledGauge(
    'db_pool_connections',
    'database connections of this process: state="used" (running a query or transaction) or "free"',
    ['state'],
    async () => {
      const pool = poolOf(db);
      return pool ? [{ labels: { state: 'used' }, value: pool.numUsed() }, { labels: { state: 'free' }, value: pool.numFree() }] : [];
    },
    failed('db_pool_connections'),
  );
  metrics.sampledGauge(
    'db_pool_pending_acquires',
    'queries and transactions waiting for a free database connection',
    [],
    async () => {
      const pool = poolOf(db);
      return pool ? [{ labels: {}, value: pool.numPendingAcquires() }] : [];
    },
    failed('db_pool_pending_acquires'),
  );
}

async function waitingSms(db: Database): Promise<Sample[]> {
  // Two counts, each over its own partial index (sms_pool, sms_named_waiting).
  const [pool, named] = await Promise.all([
    db('sms').where({ status: 'pending' }).whereNull('dispatched_at').whereNull('device_id').count<{ n: number }[]>({ n: '*' }),
    db('sms').where({ status: 'pending' }).whereNull('dispatched_at').whereNotNull('device_id').count<{ n: number }[]>({ n: '*' }),
  ]);
  return [
    { labels: { queue: 'pool' }, value: Number(pool[0]?.n ?? 0) },
    { labels: { queue: 'device' }, value: Number(named[0]?.n ?? 0) },
  ];
}

async function inFlightSms(db: Database): Promise<Sample[]> {
  const { rows } = await db.raw<{ rows: { device_id: string; n: number }[] }>(
    `select device_id, count(*)::int as n from sms
      where dispatched_at is not null and status in ('pending','processing') and device_id is not null
      group by device_id order by n desc, device_id`,
  );
  const samples: Sample[] = rows.slice(0, IN_FLIGHT_DEVICE_SERIES).map((row) => ({ labels: { device: row.device_id }, value: row.n }));
  const rest = rows.slice(IN_FLIGHT_DEVICE_SERIES).reduce((sum, row) => sum + row.n, 0);
  if (rows.length > IN_FLIGHT_DEVICE_SERIES) samples.push({ labels: { device: 'other' }, value: rest });
  return samples;
}

async function webhookBacklog(db: Database): Promise<Sample[]> {
  // Held: waiting for their webhook to be switched back on (parked, see webhooks/parking.ts).
  const { rows } = await db.raw<{ rows: { due: number; scheduled: number; held: number }[] }>(
    `select count(*) filter (where next_attempt_at <= now())::int as due,
            count(*) filter (where next_attempt_at > now() and next_attempt_at <> 'infinity')::int as scheduled,
            count(*) filter (where next_attempt_at = 'infinity')::int as held
       from webhook_deliveries where status = 'pending'`,
  );
  return [
    { labels: { state: 'due' }, value: rows[0]?.due ?? 0 },
    { labels: { state: 'scheduled' }, value: rows[0]?.scheduled ?? 0 },
    { labels: { state: 'held' }, value: rows[0]?.held ?? 0 },
  ];
}

async function oldestDueWebhook(db: Database): Promise<Sample[]> {
  // The deliveries that could go now (a delivery waiting behind its SMS's earlier one is not one):
  // through the partial index webhook_deliveries_ready, one probe.
  const { rows } = await db.raw<{ rows: { seconds: number | null }[] }>(
    `select extract(epoch from now() - min(next_attempt_at))::float8 as seconds
       from webhook_deliveries where status = 'pending' and ready and next_attempt_at <= now()`,
  );
  return [{ labels: {}, value: Math.max(0, Number(rows[0]?.seconds ?? 0)) }];
}

interface PoolFigures {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/** knex's connection pool (tarn); absent once the database is closed. */
function poolOf(db: Database): PoolFigures | undefined {
  return (db as Knex & { client: { pool?: PoolFigures } }).client.pool ?? undefined;
}

/**
 * Times one webhook attempt, from the request going out to its answer read (or its failure), by
 * the outcome webhook_attempts_total counts: delivered (2xx), gone (410) or failed.
 */
export async function meterWebhookAttempt<T extends { code: number | null }>(metrics: Metrics, attempt: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await attempt();
  const { code } = result;
  const outcome = code !== null && code >= 200 && code < 300 ? 'delivered' : code === 410 ? 'gone' : 'failed';
  metrics.observe(WEBHOOK_DELIVERY_DURATION, WEBHOOK_DELIVERY_DURATION_HELP, { outcome }, (performance.now() - started) / 1000);
  return result;
}
