// Webhooks as an account registers them, and the outbox their deliveries are written to in the
// transaction of what they tell. Sending them is the sender's feature (sender-feature.ts), which a
// one-shot command does not load.
import { defineFeature } from '../../composition/feature.ts';
import { DestinationGuard } from './outbound/destination-guard.ts';
import { SecretBox } from './outbound/secret-box.ts';
import { WebhookOutbox } from './ordering/outbox.ts';
import { WebhookService } from './registration/service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    webhooks: WebhookService;
    /** Encrypts webhook and Twilio secrets at rest (WEBHOOK_SECRET_KEY, or a key file in DATA_DIR). */
    secrets: SecretBox;
    /** Refuses webhook URLs that point inside the gateway's network (WEBHOOK_ALLOWED_HOSTS opens some). */
    guard: DestinationGuard;
    /** Where webhook deliveries are written, in the transaction of what they tell. */
    outbox: WebhookOutbox;
  }
}

export const webhooksFeature = defineFeature({
  name: 'webhooks',
  provides: ['webhooks', 'secrets', 'guard', 'outbox'],
  make: ({ db, config }, need) => {
    const secrets = SecretBox.fromConfig(config.webhooks.secretKey, config.dataDir);
    const guard = new DestinationGuard(config.webhooks.allowedHosts);
    const outbox = new WebhookOutbox(config.webhooks.retryForMs);
    return { secrets, guard, outbox, webhooks: new WebhookService(db, secrets, guard, config.webhooks.retryForMs, outbox, need('events')) };
  },
  listens: [
    {
      // Changed webhooks are told to the other nodes (and, from a command, to every running node):
      // they drop what they cached of whether the account listens for device events.
      register: (events, need) => void events.on('webhooks.changed', ({ accountId }) => need('invalidation').publish('webhooks', accountId)),
      inCommands: true,
    },
  ],
  waysIn: async () => {
    const { webhookRoutes } = await import('../../api/extended/webhooks/registration/routes.ts');
    return { routes: (s) => webhookRoutes(s.webhooks) };
  },
});
