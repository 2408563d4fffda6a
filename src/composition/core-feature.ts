// What every feature stands on: the database and clock it was given, the event seam, metrics,
// admission control, the shared authentication throttle, and the news told to other nodes.
import { DomainEvents } from '../events/domain-events.ts';
import type { DomainEventMap, GatewayEvents } from '../event-catalog.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../common/clock.ts';
import type { Database } from '../storage/database.ts';
import { gaugeReadFailed, Metrics } from '../common/metrics.ts';
import { Admission } from '../common/admission.ts';
import { AuthThrottle } from '../common/auth-throttle.ts';
import { poolConnections, poolPendingAcquires } from '../storage/pool-gauges.ts';
import { CACHE_KINDS, CacheInvalidation } from '../cluster/invalidation.ts';
import { defineFeature } from './feature.ts';

declare module './feature.ts' {
  interface Services {
    db: Database;
    clock: Clock;
    /** The one seam control passes through from one module to another (src/event-catalog.ts lists what goes through it). */
    events: GatewayEvents;
    metrics: Metrics;
    /** Whether the process can take more work now (HTTP requests, device connections). */
    admission: Admission;
    /** Failed authentications per client address; the HTTP API and the broker share it. */
    authThrottle: AuthThrottle;
    /** Tells other nodes what to drop from their caches (a no-op for a single node). */
    invalidation: CacheInvalidation;
  }
}

/** The metrics of a node; several nodes scraped into one Prometheus must be told apart. */
export function createMetrics(config: Config): Metrics {
  return new Metrics(config.redisUrl || config.redisSentinel ? { node: config.nodeId } : {});
}

export const coreFeature = defineFeature({
  name: 'core',
  provides: ['db', 'clock', 'events', 'metrics', 'admission', 'authThrottle', 'invalidation'],
  make: ({ config, db, clock, logger, parts }) => {
    const metrics = parts.metrics ?? createMetrics(config);
    return {
      db,
      clock,
      events: new DomainEvents<DomainEventMap>((error, event) => logger.error({ err: error, event }, 'event listener failed')),
      metrics,
      admission: new Admission(config.admission),
      authThrottle: new AuthThrottle(config.authThrottle, clock, { metrics, logger: logger.child({ component: 'auth' }) }),
      invalidation: parts.invalidation ?? new CacheInvalidation(logger.child({ component: 'cluster' })),
    };
  },
  listens: [
    {
      // News from other nodes enters the seam here, and only here: whoever caches hears it there.
      register: (events, need) => {
        const invalidation = need('invalidation');
        for (const kind of CACHE_KINDS) invalidation.on(kind, (id) => void events.emit('cache.changed_elsewhere', { kind, id }));
        invalidation.onReset(() => void events.emit('cache.news_missed', {}));
      },
    },
  ],
  meters: ({ metrics, db }, { logger }) => {
    const failed = gaugeReadFailed(logger);
    metrics.sampledGauge(
      'db_pool_connections',
      'database connections of this process: state="used" (running a query or transaction) or "free"',
      ['state'],
      () => poolConnections(db),
      failed('db_pool_connections'),
    );
    metrics.sampledGauge(
      'db_pool_pending_acquires',
      'queries and transactions waiting for a free database connection',
      [],
      () => poolPendingAcquires(db),
      failed('db_pool_pending_acquires'),
    );
  },
  runs: ({ admission }) => [{ name: 'admission', start: () => {}, stop: () => admission.stop(), stopsIn: 'last' }],
});
