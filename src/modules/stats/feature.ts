// The dashboard's summary: counts and rates, read only.
import { defineFeature } from '../../composition/feature.ts';
import { StatsService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** The dashboard's summary (reads only). */
    stats: StatsService;
  }
}

export const statsFeature = defineFeature({
  name: 'stats',
  provides: ['stats'],
  make: ({ db, clock }, need) => ({ stats: new StatsService(db, need('presence'), clock) }),
});
