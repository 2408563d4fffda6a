import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../common/page-schema.ts';
import { EXTENDED_STATUSES, SMS_STATUSES } from './status.ts';
import { smsCategorySchema } from './category.ts';
import { WAYS_IN } from './types.ts';

import { MESSAGE_MAX_CHARACTERS } from '../../common/characters.ts';

// Defined beside the character count, so the panel counts against it without the API's schemas.
export { MESSAGE_MAX_CHARACTERS };

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });
// What each status means, shown beside its value in the published document (x-enumDescriptions),
// where client generators and the API reference put it on the enumeration's members.
const STATUS_MEANINGS: Record<(typeof EXTENDED_STATUSES)[number], string> = {
  pending: 'accepted; waiting for a phone, or taken by one and not yet sent',
  sent: 'the phone handed it to the mobile network',
  delivered: 'the network reported it reached the recipient (final)',
  undelivered: 'the network reported it could not reach the recipient (final)',
  failed_send: 'never sent: the phone could not send it, or the gateway ended it first (expired, cancelled, device deleted); reason says which (final)',
  failed_delivery: 'sent, but its delivery failed or can never be confirmed (its device was deleted); reason says which (final)',
};
const ExtendedStatus = Type.Union(
  EXTENDED_STATUSES.map((status) => Type.Literal(status, { description: STATUS_MEANINGS[status] })),
  { description: 'a task the device has taken but not yet sent still shows as pending' },
);

const Scheduling = {
  send_at: Type.Optional(Type.String({ format: 'date-time', description: 'not sent before this time (ISO 8601); at most a year ahead' })),
  valid_until: Type.Optional(
    Type.String({ format: 'date-time', description: 'not taken by a phone by then, the SMS ends as failed_send with reason "expired"' }),
  ),
  ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'seconds from now; instead of valid_until' })),
  priority: Type.Optional(Type.Integer({ minimum: -100, maximum: 100, default: 0, description: 'higher first; equal priority goes oldest first' })),
};

const Category = (description: string) => smsCategorySchema({ description });
const CATEGORY_MEANING =
  'what the SMS is: otp (a one-time code), transactional (an account notice, a receipt), marketing; the account\'s routes may send ' +
  'it by this (docs/routes.md). Not the sms:send_transactional permission: a category never lets an SMS past the suppression list';

// POST /api/ext/v1/sms
export const CreateSmsBody = Type.Object(
  {
    phone: Type.String({ minLength: 1, maxLength: 64, description: 'recipient, international format such as +79161234567' }),
    message: Type.String({
      minLength: 1,
      'x-maxCharacters': MESSAGE_MAX_CHARACTERS,
      description: 'at most 170 characters, counted as a person counts them (an emoji with a skin tone is one)',
    }),
    device_id: Type.Optional(Type.String({ format: 'uuid', description: 'send through this device; omitted: the gateway chooses' })),
    sim_slot: Type.Optional(
      Type.Union([Type.Integer({ minimum: -2, maximum: 2 }), Type.Null()], {
        description:
          'SIM slot to send from, 0-2 (-1 random, -2 the phone\'s default), as the legacy to_sim; meaningful with device_id on a ' +
          'multi-SIM phone. Absent or null: the device\'s selected_sim decides',
      }),
    ),
    callback_id: Type.Optional(
      Type.String({ maxLength: 64, description: 'id of the webhook that gets this SMS\'s events (as the legacy callback_id); "" or absent: every webhook with SMS events' }),
    ),
    no_store: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'true: keep no record. Answered 503 when no online device can take the SMS right now.',
      }),
    ),
    category: Type.Optional(Category(`${CATEGORY_MEANING}; absent: none`)),
    ...Scheduling,
  },
  { additionalProperties: false },
);

/** Bulk sends take at most this many messages per call. */
export const BULK_MAX_MESSAGES = 1000;

// POST /api/ext/v1/sms/bulk (JSON; the same fields as CSV columns under a header row)
export const BulkSmsMessage = Type.Omit(CreateSmsBody, ['no_store'], { additionalProperties: false });

const bulkMessages = (items: typeof BulkSmsMessage | ReturnType<typeof Type.Unknown>) =>
  Type.Object(
    {
      messages: Type.Array(items, {
        minItems: 1,
        maxItems: BULK_MAX_MESSAGES,
        description: `1-${BULK_MAX_MESSAGES} messages, each with the fields of POST /sms (no_store excepted)`,
      }),
    },
    { additionalProperties: false },
  );

/** As documented: each message is a POST /sms body. */
export const BulkSmsBody = bulkMessages(BulkSmsMessage);
/** As the route checks it first: the envelope; each message is checked with the lookups. */
export const BulkSmsEnvelope = bulkMessages(Type.Unknown());

// An SMS as the Extended API shows it.
export const SmsView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    device_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description:
        'the device the SMS is assigned to. null until a phone claims it: the 201 of POST /sms without device_id ' +
        'always shows null, since the SMS is stored before any phone is asked (it waits in the account\'s pool until a ready ' +
        'device with room takes it; read it again to see which). null again if it goes back to the pool before its phone ' +
        'acknowledged it (the device went offline, was switched off or deleted). Set from creation when the client named a device',
    }),
    phone: Type.String({ description: 'E.164; end-to-end ciphertext when is_encrypted' }),
    message: Type.String({ description: 'the text; end-to-end ciphertext when is_encrypted; empty for a data SMS' }),
    status: ExtendedStatus,
    reason: Type.Union([Type.String(), Type.Null()], {
      description:
        'why a failed SMS failed: expired, cancelled, device_deleted (its device was deleted before it sent it, or, on a failed_delivery, before it confirmed delivery), recipient_opted_out (its recipient sent STOP before a phone took it: docs/opt-out.md), or the error the phone reported; device_disabled only on SMS ended by versions that failed them when their device was switched off; null otherwise',
    }),
    sent_at: Type.String({ format: 'date-time', description: 'when the SMS was created' }),
    updated_at: Timestamp,
    send_at: Type.Union([Timestamp, Type.Null()], { description: 'not sent before this time; null: at once' }),
    valid_until: Type.Union([Timestamp, Type.Null()], { description: 'expires then unless a phone took it; null: never' }),
    priority: Type.Integer({ minimum: -100, maximum: 100 }),
    sim_slot: Type.Union([Type.Integer(), Type.Null()], { description: 'the SIM slot asked for at creation; null: the device\'s settings decide' }),
    callback_id: Type.Union([Type.String(), Type.Null()], { description: 'the webhook that gets this SMS\'s events; null: every webhook with SMS events' }),
    segments: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description:
        'parts a phone splits the text into (160/153 GSM-7, 70/67 UCS-2 units); 1 for a data SMS; null for an end-to-end encrypted SMS, whose text the gateway cannot read',
    }),
    encoding: Type.Union([Type.Literal('gsm7'), Type.Literal('ucs2'), Type.Null()], {
      description:
        'gsm7 when every character is in the GSM 03.38 basic or extension table; ucs2 otherwise; null for a data SMS (8-bit binary) and an end-to-end encrypted one',
    }),
    kind: Type.Optional(
      Type.Union([Type.Literal('data'), Type.Literal('mms'), Type.Literal('canary')], { description: 'present only when the message is not a plain text SMS: data (POST /sms/data), mms (GET /mms/{id} shows its subject and parts), or canary (a health check the gateway sent between the account\'s own SIMs, docs/fleet-health.md; listed only when asked for)' }),
    ),
    is_encrypted: Type.Optional(
      Type.Literal(true, {
        description:
          'present only on an end-to-end encrypted SMS (POST /sms/encrypted): phone and message are ciphertext only the client and the phone can read (docs/encryption.md)',
      }),
    ),
    data: Type.Optional(Type.String({ description: 'a data SMS\'s payload, base64' })),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'a data SMS\'s application port' })),
    category: Type.Optional(Category(`present only when its client gave one: ${CATEGORY_MEANING}`)),
  },
  { additionalProperties: false },
);

// Unknown query parameters are ignored here, as they were before dry_run existed.
export const BulkSmsQuery = Type.Object({
  dry_run: Type.Optional(
    Type.Boolean({ default: false, description: 'true: check every message and answer each one\'s result (200); nothing is created' }),
  ),
  partial: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'true: send the valid messages and answer each bad one\'s error beside them (201, errors); false: one bad message refuses all (400)',
    }),
  ),
});

export const FieldError = Type.Object({
  field: Type.String({ description: 'within the message, such as phone; empty: the message as a whole' }),
  message: Type.String({ description: 'for people' }),
  code: Type.Optional(Type.String({ description: 'only where the problem has its own error code (recipient_opted_out); for programs' })),
});

/** A row a partial send left out (?partial=true), and why. */
export const RefusedRow = Type.Object({
  index: Type.Integer({ minimum: 0, description: 'the row\'s position in the request, from 0' }),
  recipient: Type.Union([Type.String(), Type.Null()], { description: 'the phone as the row gave it; null when it gave none' }),
  code: Type.String({ description: 'the error code a single send of the row would answer: recipient_opted_out, invalid_phone, message_too_long, validation_failed...' }),
  message: Type.String({ description: 'every problem of the row, for people' }),
  errors: Type.Array(FieldError, { minItems: 1, description: 'each problem, field relative to the row' }),
});

export const BulkDryRun = Type.Object({
  data: Type.Array(
    Type.Union([
      Type.Object({
        index: Type.Integer({ minimum: 0 }),
        valid: Type.Literal(true),
        phone: Type.String({ description: 'E.164, as it would be sent' }),
        message: Type.String(),
        device_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
          description: 'the device the client named; null: none was named, and the gateway chooses one when a phone claims it',
        }),
        send_at: Type.Union([Timestamp, Type.Null()], { description: 'not sent before this time; null: at once' }),
        valid_until: Type.Union([Timestamp, Type.Null()], { description: 'expires then unless a phone took it; null: never' }),
        priority: Type.Integer(),
        segments: Type.Integer({ minimum: 1 }),
        encoding: Type.Union([Type.Literal('gsm7'), Type.Literal('ucs2')]),
        category: Type.Optional(Category(`present only when the message gives one: ${CATEGORY_MEANING}`)),
      }),
      Type.Object({ index: Type.Integer({ minimum: 0 }), valid: Type.Literal(false), errors: Type.Array(FieldError, { minItems: 1 }) }),
    ]),
    { description: 'one result per message, in the order given' },
  ),
});

export const BulkSmsCreated = Type.Object({
  data: Type.Array(SmsView, { description: 'the created SMS, in the order given (with ?partial=true, the bad rows left out)' }),
  errors: Type.Optional(Type.Array(RefusedRow, { description: 'only with ?partial=true: each row not sent, in the order given (empty when all were sent)' })),
});

export const SmsHistoryEntry = Type.Object({
  status: ExtendedStatus,
  internal_status: Type.Union(SMS_STATUSES.map((status) => Type.Literal(status)), {
    description: 'finer-grained: shows processing, which the Extended status folds into pending',
  }),
  source: Type.Union([Type.Literal('api'), Type.Literal('device'), Type.Literal('system')]),
  reason: Type.Union([Type.String(), Type.Null()], {
    description: 'why the gateway took this step (expired, cancelled, device_deleted, ...) or the error the phone reported; null: no reason given',
  }),
  at: Timestamp,
});

export const SmsDetail = Type.Composite(
  [
    SmsView,
    Type.Object({
      way_in: Type.Union(WAYS_IN.map((way) => Type.Literal(way)), {
        description:
          'how it came in: api (the Extended API with a key), panel (the control panel), legacy, smpp, twilio, mail (email to SMS), ' +
          'or written by the gateway in answer to a received SMS (rule, opt-out, twiml)',
      }),
      history: Type.Array(SmsHistoryEntry),
    }),
  ],
  {
    additionalProperties: false,
  },
);

export const SmsIdParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'SMS id (UUID)' }) });

export const SmsListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(ExtendedStatus),
    device_id: Type.Optional(Type.String({ format: 'uuid' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'created before' })),
    search: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'case-insensitive substring of the message or the phone, or of a status: its Extended name (failed_send) or ' +
          'its legacy label (waiting, failed); empty: no search. Combines with the other filters',
      }),
    ),
    phone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'only SMS to this recipient (normalized as when sending)' })),
    kind: Type.Optional(
      Type.Literal('canary', { description: 'canary: only the fleet health checks the gateway sent between the account\'s own SIMs, which the list leaves out otherwise' }),
    ),
    category: Type.Optional(Category('only SMS sent with this category')),
  },
  { additionalProperties: false },
);

export const SmsList = PageOf(SmsView);
