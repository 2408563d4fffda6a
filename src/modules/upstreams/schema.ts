// An account's upstreams and routes as the Extended API takes and answers them. An upstream's
// fields are flat, those of its kind only: what was posted is what is read back, less the secret
// (password, auth_token), which is never shown.
import { Type, type TSchema } from '@sinclair/typebox';
import { SMS_CATEGORIES, smsCategorySchema } from '../messages/category.ts';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });
const Money = (description: string) => Type.Union([Type.Number({ minimum: 0, maximum: 1e9 }), Type.Null()], { description });
const E164Prefix = Type.String({ pattern: '^\\+[0-9]{1,15}$', description: 'the start of a destination in E.164, e.g. "+44"' });
const PrefixPrice = Type.Object({ prefix: E164Prefix, price: Type.Number({ minimum: 0, maximum: 1e6 }) }, { additionalProperties: false });

/** The fields of an SMPP upstream (an SMSC the gateway binds to as an ESME). */
const SMPP_FIELDS = {
  host: Type.String({ minLength: 1, maxLength: 253, description: 'smpp: the SMSC host name or address' }),
  port: Type.Integer({ minimum: 1, maximum: 65535, description: 'smpp: the SMSC port' }),
  tls: Type.Boolean({ description: 'smpp: connect over TLS (the certificate is checked); default false' }),
  system_id: Type.String({ minLength: 1, maxLength: 16, description: 'smpp: the system_id to bind with' }),
  system_type: Type.String({ maxLength: 12, description: 'smpp: the system_type to bind with; default empty' }),
  bind_mode: Type.Union([Type.Literal('transceiver'), Type.Literal('transmitter_receiver')], { description: 'smpp: one transceiver bind (default), or a transmitter and a receiver' }),
  source_addr: Type.String({ maxLength: 20, description: 'smpp: who SMS are from (a number or an alphanumeric sender); default empty (the SMSC decides)' }),
  throughput_per_second: Type.Integer({ minimum: 1, maximum: 5000, description: 'submissions a second at most; default 50' }),
  window_size: Type.Integer({ minimum: 1, maximum: 1000, description: 'smpp: submit_sm awaiting an answer at once; default 10' }),
  enquire_link_seconds: Type.Integer({ minimum: 5, maximum: 600, description: 'smpp: seconds between enquire_link; default 30' }),
};

/** The fields of an upstream speaking Twilio's Messages API. */
const TWILIO_FIELDS = {
  base_url: Type.String({ format: 'uri', maxLength: 2048, description: 'twilio: the API root, e.g. https://api.twilio.com' }),
  account_sid: Type.String({ minLength: 1, maxLength: 64, description: 'twilio: the account SID' }),
  from: Type.Union([Type.String({ minLength: 1, maxLength: 32 }), Type.Null()], { description: 'twilio: the sender (From); this or messaging_service_sid; null when the messaging service picks the sender' }),
  messaging_service_sid: Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], { description: 'twilio: the messaging service (MessagingServiceSid); this or from; null when from is the sender' }),
  max_concurrent: Type.Integer({ minimum: 1, maximum: 100, description: 'twilio: requests in flight at once; default 10' }),
};

const SECRETS = {
  password: Type.String({ minLength: 1, maxLength: 64, description: 'smpp: the password to bind with; kept encrypted, never shown' }),
  auth_token: Type.String({ minLength: 1, maxLength: 128, description: 'twilio: the auth token; kept encrypted, never shown' }),
};

const COMMON = {
  name: Type.String({ minLength: 1, maxLength: 100, description: 'unique in the account' }),
  enabled: Type.Boolean({ description: 'a disabled upstream is skipped by the routes and holds no connection; default true' }),
  price_per_segment: Money('what one segment costs through it, in the account\'s own currency; null: no price'),
  prefix_prices: Type.Array(PrefixPrice, { maxItems: 500, description: 'prices for destinations starting with a prefix; the longest match wins over price_per_segment' }),
  monthly_budget: Money('past this spend in a calendar month (UTC) the routes skip it until the month ends; null: no budget'),
};

const KIND = Type.Union([Type.Literal('smpp'), Type.Literal('twilio')]);

const allOptional = <T extends Record<string, TSchema>>(fields: T) => Type.Partial(Type.Object(fields)).properties;

export const CreateUpstreamBody = Type.Object(
  { ...allOptional(COMMON), name: COMMON.name, kind: KIND, ...allOptional(SMPP_FIELDS), ...allOptional(TWILIO_FIELDS), ...allOptional(SECRETS) },
  { additionalProperties: false },
);

export const UpdateUpstreamBody = Type.Object(
  { ...allOptional(COMMON), ...allOptional(SMPP_FIELDS), ...allOptional(TWILIO_FIELDS), ...allOptional(SECRETS) },
  { additionalProperties: false },
);

export const UpstreamIdParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'upstream id (UUID)' }) });

const LinkStateView = Type.Object(
  {
    state: Type.Union(['connecting', 'ready', 'throttled', 'down', 'closed'].map((state) => Type.Literal(state)), {
      description: 'on the node that answers: connecting (binding), ready, throttled (the provider asked to slow down), down (lost or refused: retrying), closed (disabled)',
    }),
    detail: Type.Union([Type.String(), Type.Null()], { description: 'why it is down or being tried again, in words; null while nothing is wrong' }),
    since: Timestamp,
  },
  { additionalProperties: false },
);

export const UpstreamView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    kind: KIND,
    ...COMMON,
    ...allOptional(SMPP_FIELDS),
    ...allOptional(TWILIO_FIELDS),
    month: Type.Object(
      {
        month: Type.String({ description: 'the calendar month (UTC), YYYY-MM' }),
        segments: Type.Integer({ minimum: 0, description: 'segments it took this month' }),
        spent: Type.Number({ minimum: 0, description: 'their price' }),
        budget_left: Type.Union([Type.Number(), Type.Null()], { description: 'monthly_budget less spent (0 when spent); null without a budget' }),
      },
      { additionalProperties: false },
    ),
    link: LinkStateView,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

export const UpstreamList = Type.Object({ data: Type.Array(UpstreamView) }, { additionalProperties: false });

export const RouteRuleSchema = Type.Object(
  {
    target: Type.String({
      minLength: 1,
      maxLength: 64,
      description: '"phones" (the account\'s phones), "group:<name>" (the phones of that device group: PATCH /devices/{id}/settings group) or an upstream\'s id',
    }),
    prefixes: Type.Optional(Type.Array(E164Prefix, { minItems: 1, maxItems: 100, description: 'the rule applies only to destinations starting with one of these' })),
    min_priority: Type.Optional(Type.Integer({ minimum: -100, maximum: 100, description: 'the rule applies only to SMS of at least this priority' })),
    categories: Type.Optional(
      Type.Array(smsCategorySchema(), {
        minItems: 1,
        maxItems: SMS_CATEGORIES.length,
        uniqueItems: true,
        description: 'the rule applies only to SMS sent with one of these categories (POST /sms category); an SMS without a category matches none',
      }),
    ),
    after_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 604_800, description: 'phones and group rules only: how long phones have to take the SMS before the next rule; no limit when absent' })),
    skip_when_offline: Type.Optional(Type.Boolean({ description: 'phones and group rules only: move on at once when no phone of the account (of the group) is online; default true' })),
  },
  { additionalProperties: false },
);

export const RoutesBody = Type.Object(
  { routes: Type.Array(RouteRuleSchema, { maxItems: 20, description: 'in order; an empty list sends every SMS to the phones' }) },
  { additionalProperties: false },
);

export const RoutesView = Type.Object(
  { routes: Type.Array(RouteRuleSchema), updated_at: Type.Union([Timestamp, Type.Null()], { description: 'null: never set' }) },
  { additionalProperties: false },
);
