// USSD sessions through the phones, and the sweep that ends those nobody answered in time.
import { defineFeature } from '../../composition/feature.ts';
import { UssdService } from './service.ts';
import { ussdWebhookListeners } from './webhook-listeners.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** USSD sessions through the phones, and their expiry sweep. */
    ussd: UssdService;
  }
}

export const ussdFeature = defineFeature({
  name: 'ussd',
  provides: ['ussd'],
  make: ({ db, config, clock, logger, parts }, need) => ({
    ussd: new UssdService(db, need('devices'), need('presence'), need('events'), clock, logger.child({ component: 'ussd' }), { defaultTimeoutMs: config.ussdTimeoutMs, sweepIntervalMs: 1_000 }, parts.ussdLink),
  }),
  listens: [{ register: (events, need) => void events.listenAll(ussdWebhookListeners(need('outbox'), need('webhookSender'))) }],
  runs: ({ ussd }) => [{ name: 'USSD expiry', start: () => ussd.startExpiry(), stop: () => ussd.stopExpiry(), stopsIn: 'phones-gone' }],
  waysIn: async () => {
    const { ussdRoutes } = await import('../../api/extended/ussd/routes.ts');
    return { routes: (s) => ussdRoutes(s.ussd) };
  },
});
