// The gateway's own figures on /metrics, beside the counts its parts keep themselves: SMS by
// status transition, the queues (SMS waiting, tasks in flight per device, the webhook backlog)
// and the database pool. Queue depths are read from the database when Prometheus scrapes, not
// tracked in memory: the rows are the queue (architecture decision 1), so the figures stay
// right across restarts and with several gateway processes on one database. Each gauge's query
// belongs to the module whose table it reads; they are registered together here.
import type { Knex } from 'knex';
import type { Logger } from '../common/logger.ts';
import { LATENCY_BUCKETS, type Metrics } from '../common/metrics.ts';
import { WEBHOOK_DELIVERY_DURATION, WEBHOOK_DELIVERY_DURATION_HELP } from '../common/gateway-metrics.ts';
import type { Database } from '../storage/database.ts';
import type { DomainEvents } from '../events/domain-events.ts';
import type { DeliveryEvents } from '../modules/delivery/domain-events.ts';
import { IN_FLIGHT_DEVICE_SERIES, inFlightSms, waitingSms } from '../modules/messages/queue-gauges.ts';
import { oldestDueWebhook, webhookBacklog } from '../modules/webhooks/backlog-gauges.ts';

export const SMS_TRANSITIONS = 'sms_status_transitions_total';
const SMS_TRANSITIONS_HELP = 'SMS status changes, by the status left and the status reached';

export interface MeteredParts {
  db: Database;
  events: DomainEvents<Pick<DeliveryEvents, 'sms.status_changed'>>;
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

interface PoolFigures {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/** knex's connection pool (tarn); absent once the database is closed. */
function poolOf(db: Database): PoolFigures | undefined {
  return (db as Knex & { client: { pool?: PoolFigures } }).client.pool ?? undefined;
}

