// Incoming SMS: what the phones received, stored once and told to webhooks.
import { defineFeature } from '../../composition/feature.ts';
import { IncomingService } from './service.ts';
import { wireIncomingWebhooks } from './webhook-wiring.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    incoming: IncomingService;
  }
}

export const incomingFeature = defineFeature({
  name: 'incoming',
  provides: ['incoming'],
  make: ({ db }, need) => ({ incoming: new IncomingService(db, need('events')) }),
  listens: [{ register: (events, need) => wireIncomingWebhooks(events, need('outbox'), need('webhookSender')) }],
  routes: async ({ incoming }) => {
    const { incomingRoutes } = await import('../../api/extended/incoming/routes.ts');
    return incomingRoutes(incoming);
  },
});
