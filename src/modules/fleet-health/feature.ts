// Canary rounds: each account's SIMs send one another short coded SMS on a schedule (or when the
// owner asks), and the codes coming back say which SIMs really send and receive.
import { defineFeature } from '../../composition/feature.ts';
import { PeriodicRun } from '../../common/periodic-run.ts';
import { newStatus } from '../delivery/status-change.ts';
import { CanaryService } from './canary/service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** Canary rounds between an account's own SIMs: settings, rounds, and the probes' ends. */
    canary: CanaryService;
  }
}

/** How often the due rounds and the overdue probes are looked for: one indexed read each when there are none. */
const CANARY_RUN_EVERY_MS = 10_000;

export const canaryFeature = defineFeature({
  name: 'canary',
  provides: ['canary'],
  make: ({ db, clock, logger }, need) => ({
    // The health judge decides from the probes, in the transaction that ends them.
    canary: new CanaryService(db, need('devices'), need('messages'), need('fleetHealth'), clock, logger.child({ component: 'canary' })),
  }),
  listens: [
    {
      // A canary SMS that ended failed_send fails its probe at once, in the change's transaction;
      // every other SMS costs a look at its kind.
      register: (events, need) =>
        void events.listen('sms.status_changed', {
          inTransaction: async (trx, changes) => {
            const failed = changes.filter((change) => change.sms.kind === 'canary' && !change.transient && newStatus(change) === 'failed_send');
            if (failed.length > 0) await need('canary').sendsFailed(trx, failed.map((change) => ({ smsId: change.sms.id, reason: change.reason })));
          },
        }),
    },
  ],
  runs: ({ canary }, { logger }) => {
    const run = new PeriodicRun(
      async () => {
        await canary.runDue();
        await canary.endOverdue();
      },
      {
        everyMs: CANARY_RUN_EVERY_MS,
        runAtStart: false,
        failures: { logger: logger.child({ component: 'canary' }), whileDatabaseDown: 'canary rounds wait for the database', message: 'canary run failed' },
      },
    );
    return [{ name: 'canary rounds', start: () => run.start(), stop: () => run.stop(), stopsIn: 'phones-gone' }];
  },
  waysIn: async () => {
    const { canaryRoutes } = await import('../../api/extended/canary/routes.ts');
    return { routes: (s) => canaryRoutes(s.canary) };
  },
});
