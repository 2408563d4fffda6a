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
  make: ({ db }, need) => ({ incoming: new IncomingService(db, need('events')) }),
  listens: [{ register: (events, need) => void events.listenAll(incomingWebhookListeners(need('outbox'), need('webhookSender'))) }],
});
