// Availability: how long each phone was online, from the changes presence announces. It hears
// device.online and device.offline, keeps each change, answers GET /devices/{id}/availability,
// and forgets changes older than KEEP_DAYS once an hour.
import { defineFeature } from '../../composition/feature.ts';
import { PeriodicRun } from '../../common/periodic-run.ts';
import { AvailabilityService, NOT_RECORDED_HELP, NOT_RECORDED_METRIC } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** Each device's changes between online and offline, and its availability over a range. */
    availability: AvailabilityService;
  }
}

const PRUNE_EVERY_MS = 3_600_000;

export const availabilityFeature = defineFeature({
  name: 'availability',
  provides: ['availability'],
  make: ({ db, clock, logger }, need) => ({ availability: new AvailabilityService(db, clock, need('devices'), logger.child({ component: 'availability' }), need('metrics')) }),
  listens: [
    {
      register: (events, need) => {
        const availability = need('availability');
        events.on('device.online', ({ accountId, deviceId }) => availability.record(accountId, deviceId, true));
        events.on('device.offline', ({ accountId, deviceId }) => availability.record(accountId, deviceId, false));
      },
    },
  ],
  meters: ({ metrics }) => metrics.declareCounter(NOT_RECORDED_METRIC, NOT_RECORDED_HELP),
  runs: ({ availability }, { logger }) => {
    const prune = new PeriodicRun(() => availability.prune(), {
      everyMs: PRUNE_EVERY_MS,
      runAtStart: true,
      failures: { logger: logger.child({ component: 'availability' }), whileDatabaseDown: 'availability pruning waits for the database', message: 'availability pruning failed' },
    });
    return [
      { name: 'availability pruning', start: () => prune.start(), stop: () => prune.stop(), stopsIn: 'phones-gone' },
      // The changes the phones' last connections announced are written before the database closes.
      { name: 'availability changes', start: () => {}, stop: () => availability.stop(), stopsIn: 'last' },
    ];
  },
  waysIn: async () => {
    const { availabilityRoutes } = await import('../../api/extended/availability/routes.ts');
    return { routes: (s) => availabilityRoutes(s.availability) };
  },
});
