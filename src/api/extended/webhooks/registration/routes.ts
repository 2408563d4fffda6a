// Extended API v1: webhooks (the management API and event model are ours, see README).
import { resourceRoutes } from '../../../../http/resource-routes.ts';
import { presentDelivery, presentWebhook } from '../../../../modules/webhooks/registration/presenter.ts';
import {
  CreateWebhookBody,
  DeliveryList,
  DeliveryParams,
  DeliveryView,
  UpdateWebhookBody,
  WebhookIdParams,
  WebhookList,
  WebhookListQuery,
  WebhookView,
  WebhookWithSecret,
} from '../../../../modules/webhooks/registration/schema.ts';
import type { WebhookService } from '../../../../modules/webhooks/registration/service.ts';
import { TEST_EVENT } from '../../../../modules/webhooks/event-contract.ts';

export function webhookRoutes(webhooks: WebhookService) {
  const webhook = resourceRoutes({
    tag: 'Webhooks',
    read: 'webhooks:read',
    write: 'webhooks:write',
    params: WebhookIdParams,
    missing: ['invalid_id', 'webhook_not_found'],
    one: { description: 'the webhook', schema: WebhookView },
    present: presentWebhook,
  });
  return [
    webhook.route({
      method: 'post',
      path: '/webhooks',
      operationId: 'createWebhook',
      summary: 'Create a webhook; answers its signing secret once',
      body: CreateWebhookBody,
      responses: { 201: { description: 'the webhook and its secret', schema: WebhookWithSecret } },
      errors: ['invalid_webhook_url'],
      async handle({ auth, body }) {
        const { webhook, secret } = await webhooks.create(auth.accountId, body);
        return { status: 201, body: { webhook: presentWebhook(webhook), secret } };
      },
    }),
    webhook.list({
      path: '/webhooks',
      operationId: 'listWebhooks',
      summary: 'List webhooks, newest first',
      query: WebhookListQuery,
      answer: { description: 'a page of webhooks', schema: WebhookList },
      list: ({ auth, query }, cursor) => webhooks.list(auth.accountId, query.limit, cursor),
    }),
    webhook.get({
      path: '/webhooks/:id',
      operationId: 'getWebhook',
      summary: 'Read one webhook',
      read: ({ auth, params }) => webhooks.get(auth.accountId, params.id),
    }),
    webhook.update({
      path: '/webhooks/:id',
      operationId: 'updateWebhook',
      summary: 'Change a webhook (url, events, enabled, description)',
      body: UpdateWebhookBody,
      answer: 'the webhook after the change',
      errors: ['invalid_webhook_url'],
      update: ({ auth, params, body }) => webhooks.update(auth.accountId, params.id, body),
    }),
    webhook.remove({
      path: '/webhooks/:id',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook and its delivery log',
      remove: ({ auth, params }) => webhooks.delete(auth.accountId, params.id),
    }),
    webhook.route({
      method: 'post',
      path: '/webhooks/:id/rotate-secret',
      operationId: 'rotateWebhookSecret',
      summary: 'Issue a new signing secret; the old one keeps signing for 24 hours',
      params: WebhookIdParams,
      responses: { 200: { description: 'the webhook and its new secret (shown once)', schema: WebhookWithSecret } },
      errors: ['invalid_id', 'webhook_not_found'],
      async handle({ auth, params }) {
        const { webhook, secret } = await webhooks.rotateSecret(auth.accountId, params.id);
        return { status: 200, body: { webhook: presentWebhook(webhook), secret } };
      },
    }),
    webhook.list({
      path: '/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'The delivery log of a webhook, newest first',
      params: WebhookIdParams,
      query: WebhookListQuery,
      answer: { description: 'a page of deliveries', schema: DeliveryList },
      errors: ['invalid_id', 'webhook_not_found'],
      list: ({ auth, params, query }, cursor) => webhooks.deliveries(auth.accountId, params.id, query.limit, cursor),
      present: (row, auth) => presentDelivery(row, auth.permissions),
    }),
    webhook.route({
      method: 'post',
      path: '/webhooks/:id/deliveries/:delivery/retry',
      operationId: 'retryWebhookDelivery',
      summary: 'Send a delivery again now, with a fresh retry window',
      params: DeliveryParams,
      responses: { 200: { description: 'the delivery, pending again', schema: DeliveryView } },
      errors: ['invalid_id', 'webhook_not_found', 'delivery_not_found'],
      async handle({ auth, params }) {
        return { status: 200, body: presentDelivery(await webhooks.retry(auth.accountId, params.id, params.delivery), auth.permissions) };
      },
    }),
    webhook.route({
      method: 'post',
      path: '/webhooks/:id/test',
      operationId: 'sendWebhookTestEvent',
      summary: `Send a ${TEST_EVENT} event to this webhook now`,
      description:
        `Writes a ${TEST_EVENT} event for this webhook alone, whatever events it subscribes to, and sends it the way every event ` +
        'is sent: signed with its secret, retried on failure, and recorded in its delivery log with the receiver\'s answer. ' +
        'Answers 202 with the delivery (its id is the webhook-id header the receiver gets); read the delivery log to see how ' +
        'the receiver answered. A disabled webhook is answered 409 conflict: enable it first.',
      params: WebhookIdParams,
      responses: { 202: { description: 'the test event\'s delivery, pending', schema: DeliveryView } },
      errors: ['invalid_id', 'webhook_not_found', 'conflict'],
      async handle({ auth, params }) {
        return { status: 202, body: presentDelivery(await webhooks.sendTest(auth.accountId, params.id), auth.permissions) };
      },
    }),
  ];
}
