// Incoming SMS: what the phones received, stored once and told to webhooks.
import { defineFeature } from '../../composition/feature.ts';
import { IncomingService } from './service.ts';
import { incomingWebhookListeners } from './webhook-listeners.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    incoming: IncomingService;
  }
}

export const incomingFeature = defineFeature({
  name: 'incoming',
  provides: ['incoming'],
  make: ({ db }, need) => ({
    // A canary's code coming back is the fleet health module's, never a received SMS of the
    // account; asked when an SMS arrives (canary rounds need messages, which incoming must not wait for).
    incoming: new IncomingService(db, need('events'), { caught: (accountId, deviceId, sms) => need('canary').caught(accountId, deviceId, sms) }),
  }),
  listens: [{ register: (events, need) => void events.listenAll(incomingWebhookListeners(need('outbox'), need('webhookSender'))) }],
  waysIn: async () => {
    const { incomingRoutes } = await import('../../api/extended/incoming/routes.ts');
    return { routes: (s) => incomingRoutes(s.incoming) };
  },
});
