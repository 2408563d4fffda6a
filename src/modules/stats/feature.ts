// The dashboard's summary and the device report: counts and rates, read only; and on /metrics,
// each account's SIMs by health.
import { defineFeature } from '../../composition/feature.ts';
import { gaugeReadFailed } from '../../common/metrics.ts';
import { StatsService } from './service.ts';
import { simHealthPerAccount } from './fleet-queries.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** The dashboard's summary and the device report (reads only). */
    stats: StatsService;
  }
}

export const statsFeature = defineFeature({
  name: 'stats',
  provides: ['stats'],
  make: ({ db, clock }, need) => ({ stats: new StatsService(db, need('presence'), clock) }),
  // Read from sim_health when Prometheus scrapes, labelled by account only: an alert on an
  // account's degraded SIMs needs no series per phone.
  meters: ({ metrics, db }, { logger }) => {
    metrics.sampledGauge(
      'fleet_sims',
      'SIMs the fleet\'s health checks know of, per account: state="degraded" (the canary rounds found it failing to send or receive) or "healthy"',
      ['account', 'state'],
      () => simHealthPerAccount(db),
      gaugeReadFailed(logger)('fleet_sims'),
    );
  },
  waysIn: async () => {
    const { statsRoutes } = await import('../../api/extended/stats/routes.ts');
    return { routes: (s) => statsRoutes(s.stats) };
  },
});
