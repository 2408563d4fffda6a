// Retention: how long each account keeps message text (numbers then hashed or not), applied hourly.
import { defineFeature } from '../../composition/feature.ts';
import { RetentionSweep } from '../../use-cases/retention-sweep.ts';
import { MmsRedaction } from '../mms/redaction/service.ts';
import { RetentionService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** How long each account keeps message text, and whether numbers are then hashed. */
    retention: RetentionService;
    /** Applies the accounts' retention settings, hourly. */
    retentionSweep: RetentionSweep;
  }
}

export const retentionFeature = defineFeature({
  name: 'retention',
  provides: ['retention', 'retentionSweep'],
  make: ({ db, clock, logger }, need) => {
    const retention = new RetentionService(db, clock);
    const sweeping = {
      retention,
      messages: need('messages'),
      incoming: need('incoming'),
      conversations: need('conversations'),
      mmsRedaction: new MmsRedaction(db, clock),
      webhooks: need('webhooks'),
      calls: need('calls'),
      mail: need('mail'),
      files: [need('media'), need('recordings')],
    };
    return { retention, retentionSweep: new RetentionSweep(sweeping, clock, logger.child({ component: 'retention' })) };
  },
  runs: ({ retentionSweep }) => [{ name: 'retention sweep', start: () => retentionSweep.start(), stop: () => retentionSweep.stop(), stopsIn: 'phones-gone' }],
  waysIn: async () => {
    const { retentionRoutes } = await import('../../api/extended/retention/routes.ts');
    return { routes: (s) => retentionRoutes(s) };
  },
});
