// Incoming SMS: what the phones received, stored once and told to webhooks.
import { defineFeature } from '../../composition/feature.ts';
import { incomingRoutes } from '../../api/extended/incoming/routes.ts';
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
  routes: ({ incoming }) => incomingRoutes(incoming),
});
