import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../../common/page-schema.ts';
import { TEST_EVENT, WEBHOOK_EVENTS } from '../event-contract.ts';
import { ANSWER_EXCERPT_BYTES } from '../outbound/answer-excerpt.ts';

const Timestamp = Type.String({ format: 'date-time' });
const Event = Type.Union(WEBHOOK_EVENTS.map((event) => Type.Literal(event)));
const DeliveredEvent = Type.Union([...WEBHOOK_EVENTS, TEST_EVENT].map((event) => Type.Literal(event)), {
  description: `an event the webhook subscribes to, or ${TEST_EVENT}: a test sent on request (POST /webhooks/{id}/test)`,
});
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http or https; private, loopback and link-local destinations are refused' });

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Type.Array(Event, { minItems: 1, maxItems: WEBHOOK_EVENTS.length, description: 'events this webhook receives' }),
    description: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Type.Array(Event, { minItems: 1, maxItems: WEBHOOK_EVENTS.length })),
    enabled: Type.Optional(
      Type.Boolean({ description: 'true switches a disabled webhook back on, resets its failure streak and sends the events it missed (within their retry window)' }),
    ),
    description: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const WebhookView = Type.Object({
  id: Type.String({ format: 'uuid', description: 'also the callback_id of the legacy POST /sms/send' }),
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(Event),
  enabled: Type.Boolean(),
  disabled_reason: Type.Union([Type.String(), Type.Null()], {
    description: 'why it is disabled: through the API, 410 Gone, every attempt failing for longer than WEBHOOK_DISABLE_AFTER, or a signing secret this gateway cannot decrypt (sealed under another WEBHOOK_SECRET_KEY or DATA_DIR: rotate the secret, then switch it back on); null while enabled',
  }),
  disabled_at: Type.Union([Timestamp, Type.Null()], {
    description: 'when it was disabled; null while enabled. Its events are still recorded, and go out if it is enabled again within their retry window',
  }),
  consecutive_failures: Type.Integer({ description: 'failed attempts since the last success' }),
  failing_since: Type.Union([Timestamp, Type.Null()], {
    description: 'when its current run of failed attempts began; null after a success. It is disabled once this is older than WEBHOOK_DISABLE_AFTER',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const WebhookWithSecret = Type.Object({
  webhook: WebhookView,
  secret: Type.String({ description: 'whsec_... signing secret (Standard Webhooks). Shown this once.' }),
});

export const WebhookIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const DeliveryParams = Type.Object({ id: Type.String({ format: 'uuid' }), delivery: Type.String({ format: 'uuid' }) });
export const WebhookListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export const WebhookList = PageOf(WebhookView);

export const DeliveryView = Type.Object({
  id: Type.String({ format: 'uuid', description: 'the webhook-id header: receivers de-duplicate by it' }),
  event_id: Type.String({ format: 'uuid' }),
  event_type: DeliveredEvent,
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
    description: 'pending: will be (re)sent; delivered; failed: given up',
  }),
  attempts: Type.Integer(),
  last_status_code: Type.Union([Type.Integer(), Type.Null()], {
    description: 'HTTP status of the last attempt; null before the first attempt, or when the last one got no answer (see last_error)',
  }),
  last_error: Type.Union([Type.String(), Type.Null()], { description: 'what went wrong in the last attempt; null before the first attempt and after a success' }),
  last_response_body: Type.Union([Type.String(), Type.Null()], {
    description: `the first ${ANSWER_EXCERPT_BYTES} bytes of the body the receiver answered the last attempt with, as UTF-8 text; null before the first answer and when the last attempt got none (see last_error)`,
  }),
  payload: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description:
      'the event exactly as sent (and signed): its envelope with id, type, timestamp, account_id and data. null when the caller may not read what ' +
      'it is about: an SMS event needs sms:read as well, a call event calls:read, a device event devices:read',
  }),
  next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'when it is next attempted; null unless pending, and while its webhook is disabled (it waits to be switched back on)' }),
  retry_until: Timestamp,
  created_at: Timestamp,
  delivered_at: Type.Union([Timestamp, Type.Null()], { description: 'when the receiver accepted it (2xx); null until then' }),
});
export const DeliveryList = PageOf(DeliveryView);
