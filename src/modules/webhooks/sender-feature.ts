// The webhook sender: claims due deliveries from the outbox, signs them and sends them, in order
// per SMS and webhook. The gateway runs it; a one-shot command does not.
import { defineFeature } from '../../composition/feature.ts';
import { gaugeReadFailed } from '../../common/metrics.ts';
import type { DeliveryFormat } from './outbound/delivery-format.ts';
import { WebhookSender } from './outbound/sender.ts';
import { declareWebhookAttemptMetrics } from './outbound/attempt-metrics.ts';
import { oldestDueWebhook, webhookBacklog } from './backlog-gauges.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    webhookSender: WebhookSender;
    /** The formats of deliveries other than the standard one, by name (a webhook's format); a feature that has one provides them. */
    deliveryFormats: ReadonlyMap<string, DeliveryFormat>;
  }
}

export const webhookSenderFeature = defineFeature({
  name: 'webhook-sender',
  provides: ['webhookSender'],
  make: ({ db, config, logger }, need) => ({
    webhookSender: new WebhookSender(db, need('secrets'), need('guard'), config.webhooks, need('metrics'), logger.child({ component: 'webhooks' }), need('deliveryFormats')),
  }),
  listens: [{ register: (events, need) => void events.on('webhooks.deliveries_due', () => need('webhookSender').wake()) }],
  meters: ({ metrics, db }, { logger }) => {
    const failed = gaugeReadFailed(logger);
    declareWebhookAttemptMetrics(metrics);
    metrics.sampledGauge(
      'webhook_backlog',
      'webhook deliveries not yet delivered nor given up: state="due" (to send now) or "scheduled" (a retry or a lease later)',
      ['state'],
      () => webhookBacklog(db),
      failed('webhook_backlog'),
    );
    metrics.sampledGauge(
      'webhook_backlog_oldest_due_seconds',
      'how long the longest-waiting due webhook delivery has been due (0 when none is)',
      [],
      () => oldestDueWebhook(db),
      failed('webhook_backlog_oldest_due_seconds'),
    );
  },
  runs: ({ webhookSender }) => [{ name: 'webhook sender', start: () => webhookSender.start(), stop: () => webhookSender.stop(), stopsIn: 'phones-gone' }],
});
